import Dispatch
import Foundation
import ReorderServer

extension ServeCommand {
  /// Starts the server, prints the URL line, and blocks until SIGTERM, which drains it (1012
  /// closes over `--drain-seconds`, `ReorderService.drainAndShutdown`), or SIGINT, which stops it
  /// at once (stop accepting, flush, close websockets with 1001); then exits 0. SIGHUP reloads
  /// the keys, secrets and TLS certificate (`ReorderService.reload()`) and goes on serving.
  static func serve(_ configuration: ServerConfiguration) throws -> Int32 {
    let server = try ReorderService(configuration: configuration)
    server.afterRequestedDrain = { exit(0) }
    let port = try server.start()
    let scheme = configuration.tlsCertificatePath == nil ? "http" : "https"
    let shownHost = configuration.host == "0.0.0.0" || configuration.host == "::" ? "127.0.0.1" : configuration.host
    // Written straight to the descriptor (unbuffered) so a supervising process sees it at once.
    FileHandle.standardOutput.write(Data("Reorder is listening on \(scheme)://\(shownHost):\(port)/\n".utf8))

    signalSources = [SIGINT, SIGTERM, SIGHUP].map { number -> DispatchSourceSignal in
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
      source.setEventHandler {
        // The handler runs on the main queue; a drain or a reload waits for the service thread,
        // not for it.
        switch number {
        case SIGHUP:
          server.reload()
          return
        case SIGTERM: server.drainAndShutdown()
        default: server.shutdown()
        }
        exit(0)
      }
      source.resume()
      return source
    }
    dispatchMain()
  }

  /// The signal sources, held for the life of the process. Not a local kept with
  /// `withExtendedLifetime` around `dispatchMain()`: that never returns, so an optimized build
  /// may release the sources before it (and cancel them: SIGTERM then did nothing).
  nonisolated(unsafe) static var signalSources: [DispatchSourceSignal] = []
}
