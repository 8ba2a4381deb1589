import Foundation
import ReorderRooms
import ReorderServer
import ReorderTransport
import TestSupport

/// A client's end of a websocket: a real one (`SocketLink`) or one of an `EmbeddedTransport`
/// (`EmbeddedLink`).
protocol ClientLink {
  /// Sends one text message.
  func send(_ text: String)
  /// The next event; throws when none came within `timeout` seconds.
  func receive(timeout: Double) throws -> WebSocketEvent
  /// Closes from the client's side (1000).
  func close()
}

/// A websocket over a socket.
struct SocketLink: ClientLink {
  let socket: WebSocket
  func send(_ text: String) { socket.send(text) }
  func receive(timeout: Double) throws -> WebSocketEvent { try socket.receive(timeout: timeout) }
  func close() { socket.close() }
}

/// A test client speaking the Reorder protocol over a websocket: a real one, or one of an
/// `InProcessServer`.
final class RoomClient: @unchecked Sendable {
  let link: any ClientLink
  /// Frames received but not yet consumed by `next`.
  var buffer: [JSONValue] = []
  /// The close event, once seen.
  var closeEvent: (code: UInt16?, reason: String)?
  var session = ""
  var welcome: JSONValue = .null

  init(link: any ClientLink) { self.link = link }

  /// Connects to `/ws/<room>` on 127.0.0.1:`port`.
  static func connect(port: Int, room: String, context: WebSocketClientContext? = nil) throws -> RoomClient {
    let url = "ws://127.0.0.1:\(port)/ws/\(room)"
    let socket = try context.map { try WebSocket.connect(url, on: $0) } ?? WebSocket.connect(url)
    return RoomClient(link: SocketLink(socket: socket))
  }

  /// Connects, says hello and waits for the welcome.
  static func join(
    port: Int, room: String = "t", client: String, name: String = "Tester", since: UInt64? = nil,
    epoch: JSONValue? = nil, context: WebSocketClientContext? = nil
  ) throws -> RoomClient {
    let c = try connect(port: port, room: room, context: context)
    try c.hello(room: room, client: client, name: name, since: since, epoch: epoch)
    return c
  }

  /// Says hello; `epoch` is the `epoch` member of the welcome that `since` belongs to; `token` for
  /// a server that checks tokens.
  func hello(
    room: String, client: String, name: String = "Tester", since: UInt64? = nil, epoch: JSONValue? = nil,
    token: String? = nil
  ) throws {
    var members: [(key: String, value: JSONValue)] = [
      ("type", .string("hello")), ("room", .string(room)), ("client", .string(client)), ("name", .string(name)),
      ("color", .string("#336699")),
    ]
    if let since { members.append(("since", .number(Double(since)))) }
    if let epoch { members.append(("epoch", epoch)) }
    if let token { members.append(("token", .string(token))) }
    send(.object(members))
    welcome = try next(type: "welcome")
    session = welcome["session"]?.stringValue ?? ""
  }

  func send(_ text: String) { link.send(text) }
  func send(_ value: JSONValue) { link.send(value.jsonText) }

  /// Sends an op.
  func op(_ id: String, _ op: JSONValue) { send(.object([("type", .string("op")), ("id", .string(id)), ("op", op)])) }

  /// Receives one more frame into the buffer; false on timeout or close.
  @discardableResult
  func pump(timeout: Double) -> Bool {
    guard closeEvent == nil, let event = try? link.receive(timeout: timeout) else { return false }
    switch event {
    case .text(let text):
      if let value = try? JSONValue.parse(text) { buffer.append(value) }
    case .closed(let code, let reason):
      closeEvent = (code, reason)
      return false
    default: break
    }
    return true
  }

  /// The first buffered-or-arriving frame matching `predicate` (removed from the buffer).
  func next(timeout: Double = 10, where predicate: (JSONValue) -> Bool) throws -> JSONValue {
    let deadline = Date(timeIntervalSinceNow: timeout)
    while true {
      if let i = buffer.firstIndex(where: predicate) { return buffer.remove(at: i) }
      let left = deadline.timeIntervalSinceNow
      guard left > 0, pump(timeout: left) else {
        if let i = buffer.firstIndex(where: predicate) { return buffer.remove(at: i) }
        throw ClientTimeout(
          description: "no matching frame; buffered types: \(buffer.map { $0["type"]?.stringValue ?? "?" }), "
            + "closed: \(String(describing: closeEvent))")
      }
    }
  }

  func next(type: String, timeout: Double = 10) throws -> JSONValue {
    try next(timeout: timeout) { $0["type"] == .string(type) }
  }

  /// The `applied` with this op id (left in the buffer, so that `follow` still sees it).
  func applied(id: String, timeout: Double = 10) throws -> JSONValue {
    try peek(timeout: timeout) { $0["type"] == .string("applied") && $0["id"] == .string(id) }
  }

  /// The first buffered-or-arriving frame matching `predicate`, left in the buffer.
  func peek(timeout: Double = 10, where predicate: (JSONValue) -> Bool) throws -> JSONValue {
    let deadline = Date(timeIntervalSinceNow: timeout)
    while true {
      if let frame = buffer.first(where: predicate) { return frame }
      let left = deadline.timeIntervalSinceNow
      guard left > 0, pump(timeout: left) else {
        if let frame = buffer.first(where: predicate) { return frame }
        throw ClientTimeout(description: "no matching frame; closed: \(String(describing: closeEvent))")
      }
    }
  }

  /// Waits for the connection to be closed by the server; returns the close event.
  func waitForClose(timeout: Double = 10) -> (code: UInt16?, reason: String)? {
    let deadline = Date(timeIntervalSinceNow: timeout)
    while closeEvent == nil, deadline.timeIntervalSinceNow > 0 { pump(timeout: deadline.timeIntervalSinceNow) }
    return closeEvent
  }

  func close() { link.close() }
}

struct ClientTimeout: Error, CustomStringConvertible {
  var description: String
}

/// A server tests open websockets on and send HTTP requests to: over sockets (`TestServer`) or
/// in-process (`InProcessServer`), so that a helper serves tests of either kind.
protocol RoomServer {
  /// Opens a websocket to `/ws/<room>` (no hello yet).
  func connect(room: String) throws -> RoomClient
  /// One HTTP request (`rawPath` with its query); header names of the reply lowercased.
  func http(_ method: String, _ rawPath: String, headers: [String: String], body: [UInt8]?) throws -> HTTPReply
  /// Whether `condition` holds within `timeout` seconds (an in-process server runs meanwhile).
  func waitUntil(timeout: Double, _ condition: () -> Bool) -> Bool
}

extension RoomServer {
  /// Connects, says hello and waits for the welcome.
  func join(
    room: String = "t", client: String, name: String = "Tester", since: UInt64? = nil, epoch: JSONValue? = nil
  ) throws -> RoomClient {
    let c = try connect(room: room)
    try c.hello(room: room, client: client, name: name, since: since, epoch: epoch)
    return c
  }

  /// A GET.
  func get(_ rawPath: String, headers: [String: String] = [:]) throws -> HTTPReply {
    try http("GET", rawPath, headers: headers, body: nil)
  }
}

/// A server some other code started, reached over sockets on `port`.
struct PortServer: RoomServer {
  let port: Int

  func connect(room: String) throws -> RoomClient { try RoomClient.connect(port: port, room: room) }

  func http(_ method: String, _ rawPath: String, headers: [String: String] = [:], body: [UInt8]? = nil) throws
    -> HTTPReply
  {
    try httpRequest(port: port, method: method, rawPath: rawPath, headers: headers, body: body)
  }

  func waitUntil(timeout: Double = 10, _ condition: () -> Bool) -> Bool {
    TestSupport.waitUntil(timeout: timeout, condition)
  }
}

extension ServerConfiguration {
  /// A test server's configuration: on `port`, no web root, its data in `data`, then `configure`.
  static func forTests(port: Int, data: String, _ configure: (inout ServerConfiguration) -> Void) -> Self {
    var configuration = ServerConfiguration()
    configuration.port = port
    configuration.webRoot = ""
    configuration.dataPath = data
    configure(&configuration)
    return configuration
  }
}

/// A ReorderService in this process on an ephemeral port.
final class TestServer: RoomServer {
  let server: ReorderService
  let port: Int

  init(data: String = ":memory:", configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
    server = try ReorderService(configuration: .forTests(port: 0, data: data, configure))
    port = try server.start()
  }

  deinit { server.shutdown() }

  func connect(room: String) throws -> RoomClient { try RoomClient.connect(port: port, room: room) }

  func http(_ method: String, _ rawPath: String, headers: [String: String] = [:], body: [UInt8]? = nil) throws
    -> HTTPReply
  {
    try httpRequest(port: port, method: method, rawPath: rawPath, headers: headers, body: body)
  }

  func waitUntil(timeout: Double = 10, _ condition: () -> Bool) -> Bool {
    TestSupport.waitUntil(timeout: timeout, condition)
  }
}

/// JSON shorthands for ops.
enum Ops {
  static func createList(_ id: String, layout: String = "list") -> JSONValue {
    .object([
      ("kind", .string("createList")), ("list", .string(id)), ("title", .string(id)), ("layout", .string(layout)),
    ])
  }

  static func insert(_ item: String, list: String, after: String? = nil, title: String? = nil) -> JSONValue {
    .members([
      "kind": .string("insert"), "list": .string(list), "item": .string(item), "after": after.map { .string($0) },
      "fields": .object([("title", .string(title ?? item))]),
    ])
  }

  static func move(_ item: String, list: String, after: String? = nil, before: String? = nil) -> JSONValue {
    .members([
      "kind": .string("move"), "item": .string(item), "list": .string(list), "after": after.map { .string($0) },
      "before": before.map { .string($0) },
    ])
  }

  static func delete(_ item: String) -> JSONValue { .object([("kind", .string("delete")), ("item", .string(item))]) }
}

/// Item ids of `list` in a `welcome.board`.
func boardItems(_ board: JSONValue?, list: String) -> [String] {
  guard case .array(let lists)? = board?["lists"] else { return [] }
  for l in lists where l["id"] == .string(list) {
    guard case .array(let items)? = l["items"] else { return [] }
    return items.compactMap { $0["id"]?.stringValue }
  }
  return []
}
