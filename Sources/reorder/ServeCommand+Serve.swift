import Dispatch
import Foundation
import ReorderServer

extension ServeCommand {
  /// Starts the server, prints the URL line, and blocks until SIGINT or SIGTERM, then shuts down
  /// gracefully (stop accepting, flush, close websockets with 1001) and exits 0.
  static func serve(_ configuration: ServerConfiguration) throws -> Int32 {
    let server = try ReorderService(configuration: configuration)
    let port = try server.start()
    let scheme = configuration.tlsCertificatePath == nil ? "http" : "https"
    let shownHost = configuration.host == "0.0.0.0" || configuration.host == "::" ? "127.0.0.1" : configuration.host
    // Written straight to the descriptor (unbuffered) so a supervising process sees it at once.
    FileHandle.standardOutput.write(Data("Reorder is listening on \(scheme)://\(shownHost):\(port)/\n".utf8))

    let signals = [SIGINT, SIGTERM].map { number -> DispatchSourceSignal in
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
      source.setEventHandler {
        server.shutdown()
        exit(0)
      }
      source.resume()
      return source
    }
    withExtendedLifetime(signals) { dispatchMain() }
  }
}
