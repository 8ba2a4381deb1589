import EmbeddedTransport
import Foundation
import ReorderBasics
import ReorderRooms
import ReorderServer
import ReorderTransport
import TestSupport

/// A `ReorderService` on an `EmbeddedTransport`: the service's own composition (driver, registry,
/// store, tokens, API, webhooks) with no sockets. The test's thread is its service thread: a
/// client waiting for a frame, or an HTTP request waiting for its answer, runs the transport
/// (posted work, due ticks) meanwhile. `:memory:` SQLite by default, or a data directory.
final class InProcessServer: RoomServer {
  let server: ReorderService
  let transport: EmbeddedTransport

  init(data: String = ":memory:", configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
    let configuration = ServerConfiguration.forTests(port: 8080, data: data, configure)
    let made = Locked<EmbeddedTransport?>(nil)
    server = try ReorderService(configuration: configuration) { transportConfiguration, handler in
      let transport = EmbeddedTransport(configuration: transportConfiguration, handler: handler)
      made.withLock { $0 = transport }
      return transport
    }
    transport = made.snapshot!
    _ = try server.start()
  }

  deinit { server.shutdown() }

  /// The port the handler believes it listens on (same-origin checks).
  var port: Int { transport.nominalPort }

  /// An upgrade to `/ws/<room>` as a browser on this origin would send it.
  func upgrade(
    path: String, origin: String? = nil, authorization: String? = nil, forwardedFor: String? = nil,
    peerAddress: String = "127.0.0.1"
  ) -> UpgradeRequest {
    UpgradeRequest(
      path: path, origin: origin, host: "127.0.0.1:\(port)", authorization: authorization, forwardedFor: forwardedFor,
      peerAddress: peerAddress)
  }

  /// Opens `/ws/<room>`; throws when the upgrade is refused.
  func connect(room: String) throws -> RoomClient {
    try connect(upgrade(path: "/ws/\(room)"))
  }

  /// Opens a websocket with this upgrade; throws when it is refused.
  func connect(_ request: UpgradeRequest) throws -> RoomClient {
    switch transport.connect(request) {
    case .opened(let id): return RoomClient(link: EmbeddedLink(transport: transport, connection: id))
    case .refused(let status, let reason): throw ClientTimeout(description: "upgrade refused: \(status) \(reason)")
    }
  }

  /// One HTTP request as `httpRequest(port:…)` sends it: `rawPath` may carry a query; the path is
  /// percent-decoded once (as lws does); header names are lowercased. The handler's answer.
  func http(_ method: String, _ rawPath: String, headers: [String: String] = [:], body: [UInt8]? = nil) throws
    -> HTTPReply
  {
    let parts = rawPath.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
    var lowered = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }) { $1 }
    lowered["host"] = lowered["host"] ?? "127.0.0.1:\(port)"
    if let body { lowered["content-length"] = String(body.count) }
    let head = HTTPRequestHead(
      method: method, path: String(parts[0]).removingPercentEncoding ?? String(parts[0]),
      query: parts.count > 1 ? String(parts[1]) : nil, headers: lowered, peerAddress: "127.0.0.1")
    guard let response = transport.request(HTTPRequest(head: head, body: body ?? [])) else {
      throw ClientTimeout(description: "no answer to \(method) \(rawPath)")
    }
    var replyHeaders: [String: String] = [:]
    for (name, value) in response.headers { replyHeaders[name.lowercased()] = value }
    replyHeaders["content-length"] = String(response.body.count)
    return HTTPReply(
      status: response.status, statusLine: "HTTP/1.1 \(response.status)", headers: replyHeaders,
      body: method == "HEAD" ? [] : response.body)
  }

  /// Runs the transport until `condition` holds (false after `timeout`).
  func waitUntil(timeout: Double = 10, _ condition: () -> Bool) -> Bool {
    transport.drive(timeoutSeconds: timeout, until: condition)
  }
}

/// A client's end of an embedded websocket.
struct EmbeddedLink: ClientLink {
  let transport: EmbeddedTransport
  let connection: ConnectionID

  func send(_ text: String) { transport.deliver(text, to: connection) }

  func receive(timeout: Double) throws -> WebSocketEvent {
    switch transport.receive(from: connection, timeoutSeconds: timeout) {
    case .text(let bytes)?: return .text(String(decoding: bytes, as: UTF8.self))
    case .closed(let code, let reason)?: return .closed(code: code, reason: reason)
    case nil: throw ClientTimeout(description: "nothing received within \(timeout) s")
    }
  }

  func close() { transport.disconnect(connection) }
}
