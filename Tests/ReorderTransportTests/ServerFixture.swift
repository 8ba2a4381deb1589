import Foundation
import ReorderTransport
import TestSupport
import XCTest

/// A running server on 127.0.0.1 with an ephemeral port, a web root and an echo handler; with
/// `tls`, speaking TLS with a self-signed certificate (openssl) made in its temporary directory.
final class ServerFixture {
  let handler = EchoHandler()
  let server: WebSocketServer
  let port: Int
  let webRoot: TemporaryDirectory
  /// The certificate and key files with `tls` (removed with the fixture).
  let certificate: String?
  let key: String?

  init(tls: Bool = false, configure: (inout TransportConfiguration) -> Void = { _ in }) throws {
    webRoot = try TemporaryDirectory()
    let pair = tls ? try makeSelfSignedCertificate(in: webRoot.path) : nil
    certificate = pair?.certificate
    key = pair?.key
    try webRoot.write("web/index.html", "<!doctype html><title>Reorder</title><script type=module src=app.js></script>")
    try webRoot.write("web/app.js", "export const ok = true;\n")
    try webRoot.write("web/style.css", "body { margin: 0 }\n")
    try webRoot.write("web/icon.svg", "<svg xmlns='http://www.w3.org/2000/svg'/>")
    try webRoot.write("web/manifest.webmanifest", "{}")
    try webRoot.write("web/sub/index.html", "sub index")
    try webRoot.write("secret.txt", "TOP-SECRET-OUTSIDE-WEB-ROOT")
    var configuration = TransportConfiguration()
    configuration.port = 0
    configuration.webRoot = webRoot.path + "/web"
    configuration.tlsCertificatePath = certificate
    configuration.tlsPrivateKeyPath = key
    configure(&configuration)
    server = try WebSocketServer(configuration: configuration, handler: handler)
    handler.server = server
    port = try server.start()
  }

  var scheme: String { "ws" }

  func url(_ path: String, secure: Bool = false) -> String {
    "\(secure ? "wss" : "ws")://127.0.0.1:\(port)\(path)"
  }

  func stop() {
    server.shutdown()
    webRoot.remove()
  }
}

/// Receives until a text message arrives (failing on close or timeout).
func receiveText(_ socket: WebSocket, timeout: Double = 5, file: StaticString = #filePath, line: UInt = #line) throws
  -> String
{
  let event = try socket.receive(timeout: timeout)
  guard case .text(let text) = event else {
    XCTFail("expected a text message, got \(event)", file: file, line: line)
    return ""
  }
  return text
}

/// Receives until `.closed` (skipping messages); returns its code and reason.
func receiveClose(_ socket: WebSocket, timeout: Double = 5) throws -> (code: UInt16?, reason: String) {
  let deadline = Date(timeIntervalSinceNow: timeout)
  while true {
    let event = try socket.receive(timeout: max(0.01, deadline.timeIntervalSinceNow))
    if case .closed(let code, let reason) = event { return (code, reason) }
  }
}
