import Foundation

/// Blocking convenience for tests and scripts: one connection, on its own context (or a shared one).
///
/// Events are buffered; `receive(timeout:)` returns them in order and throws
/// `TransportError.timeout` when none arrives in time.
public final class WebSocket: @unchecked Sendable {
  private let context: WebSocketClientContext
  private let ownsContext: Bool
  private let connection: ClientConnection
  private let inbox: EventInbox

  private init(context: WebSocketClientContext, ownsContext: Bool, connection: ClientConnection, inbox: EventInbox) {
    self.context = context
    self.ownsContext = ownsContext
    self.connection = connection
    self.inbox = inbox
  }

  /// Connects and waits for the handshake on a context of its own.
  /// - Throws: `TransportError.connectFailed` (with the reason) or `.timeout`.
  public static func connect(_ url: String, timeout: Double = 5, allowSelfSigned: Bool = false) throws -> WebSocket {
    let context = try WebSocketClientContext(
      allowSelfSigned: allowSelfSigned, supportsTLS: url.hasPrefix("wss:") || allowSelfSigned)
    return try connect(url, on: context, ownsContext: true, timeout: timeout)
  }

  /// Connects and waits for the handshake on a shared `context` (which this object will not shut down).
  public static func connect(_ url: String, on context: WebSocketClientContext, timeout: Double = 5) throws
    -> WebSocket
  {
    try connect(url, on: context, ownsContext: false, timeout: timeout)
  }

  private static func connect(_ url: String, on context: WebSocketClientContext, ownsContext: Bool, timeout: Double)
    throws -> WebSocket
  {
    let inbox = EventInbox()
    let connection = context.connect(url: url) { _, event in inbox.push(event) }
    let socket = WebSocket(context: context, ownsContext: ownsContext, connection: connection, inbox: inbox)
    switch inbox.pop(timeout: timeout) {
    case .opened:
      return socket
    case .closed(let code, let reason):
      throw TransportError.connectFailed(code.map { "closed \($0): \(reason)" } ?? reason)
    case nil:
      connection.close()
      throw TransportError.timeout
    default:
      preconditionFailure("a message cannot arrive before the handshake")
    }
  }

  /// Queues one text message.
  public func send(_ text: String) { connection.send(text) }

  /// Queues one text message sent as several frames.
  public func send(fragments: [String]) { connection.send(fragments: fragments) }

  /// The next event (a message or `.closed`); throws `TransportError.timeout` after `timeout` seconds.
  public func receive(timeout: Double = 5) throws -> WebSocketEvent {
    guard let event = inbox.pop(timeout: timeout) else { throw TransportError.timeout }
    return event
  }

  /// Flushes, sends a close frame, and waits (briefly) for the connection to end.
  public func close(code: UInt16 = 1000, reason: String = "") {
    connection.close(code: code, reason: reason)
    inbox.waitUntilClosed(timeout: 2)
  }

  deinit {
    if ownsContext { context.shutdown() }
  }
}

/// A locked FIFO of events with a blocking, timed pop.
final class EventInbox: @unchecked Sendable {
  private let condition = NSCondition()
  private var events: [WebSocketEvent] = []
  private var head = 0
  private var closed = false

  func push(_ event: WebSocketEvent) {
    condition.lock()
    events.append(event)
    if case .closed = event { closed = true }
    condition.broadcast()
    condition.unlock()
  }

  /// The oldest event, waiting up to `timeout` seconds; nil on timeout.
  func pop(timeout: Double) -> WebSocketEvent? {
    let deadline = Date(timeIntervalSinceNow: timeout)
    condition.lock()
    defer { condition.unlock() }
    while head == events.count {
      if !condition.wait(until: deadline) && head == events.count { return nil }
    }
    let event = events[head]
    head += 1
    return event
  }

  /// Waits until `.closed` was pushed, or `timeout` seconds.
  func waitUntilClosed(timeout: Double) {
    let deadline = Date(timeIntervalSinceNow: timeout)
    condition.lock()
    defer { condition.unlock() }
    while !closed {
      if !condition.wait(until: deadline) { return }
    }
  }
}
