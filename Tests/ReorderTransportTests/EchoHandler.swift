import Foundation
import ReorderTransport

/// A tiny handler for transport tests: echoes every message back, except `broadcast:<text>`, which
/// goes to everyone in the sender's room. Records what happened for assertions (thread safe).
///
/// Upgrades: `/ws/<room>` is accepted with the room as context; `/refuse/<status>` is refused with
/// that status. HTTP routes: `GET /healthz` (connections and rooms, as the server's), `POST /echo`
/// (the body back, at most `echoLimit` bytes), `GET /later` (answered from another thread).
final class EchoHandler: WebSocketServerHandler, @unchecked Sendable {
  private let lock = NSLock()
  private var _opened: [ConnectionID: String] = [:]
  private var _closed: [ConnectionID] = []
  private var _received: [(ConnectionID, [UInt8])] = []
  private var _ticks = 0
  private var _binaryCount = 0
  /// Set once the server exists (service thread reads it); weak: the server owns its handler.
  weak var server: WebSocketServer?

  private func locked<T>(_ body: () -> T) -> T {
    lock.lock()
    defer { lock.unlock() }
    return body()
  }

  var opened: [ConnectionID: String] { locked { _opened } }
  var closed: [ConnectionID] { locked { _closed } }
  var received: [(ConnectionID, [UInt8])] { locked { _received } }
  var ticks: Int { locked { _ticks } }
  var binaryCount: Int { locked { _binaryCount } }

  /// The largest body `POST /echo` takes.
  static let echoLimit = 1_024

  private var _upgrades: [UpgradeRequest] = []
  /// Every upgrade request seen, in order.
  var upgrades: [UpgradeRequest] { locked { _upgrades } }

  func admit(_ request: UpgradeRequest) -> UpgradeDecision {
    locked { _upgrades.append(request) }
    if request.path.hasPrefix("/refuse/"), let status = Int(request.path.dropFirst("/refuse/".count)) {
      return .refuse(status: status, reason: "refused by the test handler")
    }
    return .accept(context: String(request.path.dropFirst("/ws/".count)))
  }

  func connectionOpened(_ connection: ConnectionID, context: (any Sendable)?) {
    locked { _opened[connection] = context as? String ?? "" }
  }

  func route(_ head: HTTPRequestHead) -> HTTPRouting {
    switch head.path {
    case "/healthz", "/later": .handle(maxBodyBytes: 0)
    case "/echo": .handle(maxBodyBytes: Self.echoLimit)
    default: .pass
    }
  }

  func handle(_ request: HTTPRequest, responder: HTTPResponder) {
    switch request.head.path {
    case "/healthz":
      let rooms = locked { Set(_opened.filter { !_closed.contains($0.key) }.values).count }
      let json = "{\"status\":\"ok\",\"connections\":\(server?.connectionCount ?? 0),\"rooms\":\(rooms)}"
      responder.respond(HTTPResponse(status: 200, contentType: "application/json", body: Array(json.utf8)))
    case "/echo":
      let query = request.head.query ?? ""
      responder.respond(
        HTTPResponse(
          status: 200, contentType: "application/octet-stream",
          headers: [("x-method", request.head.method), ("x-query", query)],
          body: request.body))
    default:
      DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) {
        responder.respond(.text(202, "answered later\n"))
      }
    }
  }

  func connectionReceived(_ connection: ConnectionID, message: [UInt8], isBinary: Bool) {
    locked {
      _received.append((connection, message))
      if isBinary { _binaryCount += 1 }
    }
    if isBinary { return }
    let text = String(decoding: message, as: UTF8.self)
    if text.hasPrefix("broadcast:") {
      let room = locked { _opened[connection] }
      let peers = locked { _opened.filter { $0.value == room && !_closed.contains($0.key) }.map(\.key) }
      for peer in peers { server?.send(Array(text.utf8.dropFirst(10)), to: peer) }
    } else {
      server?.send(message, to: connection)
    }
  }

  func connectionClosed(_ connection: ConnectionID) {
    locked { _closed.append(connection) }
  }

  func transportTick() {
    locked { _ticks += 1 }
  }

  /// Service thread: every connection currently open in `room`.
  func connections(in room: String) -> [ConnectionID] {
    locked { _opened.filter { $0.value == room && !_closed.contains($0.key) }.map(\.key) }
  }
}
