import ReorderTransport

/// lws' websocket client: ReorderTransport's `WebSocketClientContext` (one lws context and
/// service thread per shard).
final class TransportSocketContext: LoadSocketContext, @unchecked Sendable {
  let context: WebSocketClientContext

  init() throws {
    // Drags frames to 1,000 clients are small; a generous cap still bounds a runaway server.
    context = try WebSocketClientContext(maxMessageBytes: 16 << 20)
  }

  func connect(url: String, subprotocol: String?, onEvent: @escaping @Sendable (LoadSocketEvent) -> Void)
    -> any LoadSocket
  {
    let connection = context.connect(url: url, protocol: subprotocol) { _, event in
      switch event {
      case .opened: onEvent(.opened)
      case .text(let text): onEvent(.text(text))
      case .binary: onEvent(.binary)
      case .closed(let code, let reason): onEvent(.closed(code: code, reason: reason))
      }
    }
    return TransportSocket(connection: connection)
  }

  func post(_ work: @escaping @Sendable () -> Void) { context.post(work) }

  func shutdown() { context.shutdown() }
}

/// One `ClientConnection` seen as a `LoadSocket`.
final class TransportSocket: LoadSocket, @unchecked Sendable {
  let connection: ClientConnection

  init(connection: ClientConnection) { self.connection = connection }

  func send(_ text: String) { connection.send(text) }

  func close(code: UInt16, reason: String) { connection.close(code: code, reason: reason) }

  func setReceiving(_ receiving: Bool) { connection.setReceiving(receiving) }
}

extension LoadRunner {
  /// Makes one lws client context per shard.
  public static let transportContextFactory: LoadSocketContextFactory = { try TransportSocketContext() }

  /// Makes one of the tool's own epoll client contexts per shard (`ws://` only).
  public static let epollContextFactory: LoadSocketContextFactory = { try EpollSocketContext() }

  /// The client `configuration.clientIO` asks for: `auto` is epoll unless a target is `wss://`;
  /// with `sourceAddress`, epoll sockets bound to it.
  public static func contextFactory(for configuration: LoadConfiguration) -> LoadSocketContextFactory {
    guard effectiveClientIO(for: configuration) != .lws else { return transportContextFactory }
    guard let source = configuration.sourceAddress.flatMap(EpollSocketContext.ipv4) else { return epollContextFactory }
    return { try EpollSocketContext(sourceAddress: source) }
  }

  /// `epoll` or `lws`: what `auto` amounts to for the configuration's targets.
  public static func effectiveClientIO(for configuration: LoadConfiguration) -> LoadConfiguration.ClientIO {
    switch configuration.clientIO {
    case .auto: configuration.url.contains("wss://") ? .lws : .epoll
    case let chosen: chosen
    }
  }
}
