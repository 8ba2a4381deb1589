/// What the load tool needs from a websocket client library: many connections on one service
/// thread. `WebSocketClientContext` of ReorderTransport provides it (see
/// `LoadSocket+Transport.swift`); tests substitute an in-memory server.
public protocol LoadSocketContext: AnyObject, Sendable {
  /// Any thread: opens a connection; `onEvent` is called on the service thread.
  func connect(url: String, subprotocol: String?, onEvent: @escaping @Sendable (LoadSocketEvent) -> Void)
    -> any LoadSocket
  /// Any thread: runs `work` on the service thread soon.
  func post(_ work: @escaping @Sendable () -> Void)
  /// Any thread: closes everything and stops the service thread; once it returns no `onEvent`
  /// runs again (a shard may be freed right after).
  func shutdown()
}

/// One client connection.
public protocol LoadSocket: AnyObject, Sendable {
  /// Any thread: queues a text message.
  func send(_ text: String)
  /// Any thread: closes the connection.
  func close(code: UInt16, reason: String)
  /// Any thread: stops (false) or resumes (true) reading from the socket, so that what the server
  /// sends stays in the kernel's buffers and the server sees a client that does not read.
  func setReceiving(_ receiving: Bool)
}

/// What happens to a connection.
public enum LoadSocketEvent: Sendable {
  case opened
  case text(String)
  case binary
  case closed(code: UInt16?, reason: String)
}

/// Makes one context per shard (service thread).
public typealias LoadSocketContextFactory = @Sendable () throws -> any LoadSocketContext
