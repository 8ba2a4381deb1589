import ReorderTransport

/// The real websocket client: ReorderTransport's `WebSocketClientContext`.
extension LoadRunner {
  /// Makes one lws client context per shard.
  public static let transportContextFactory: LoadSocketContextFactory = {
    throw LoadError.io("the lws client (ReorderTransport.WebSocketClientContext) has not landed yet")
  }
}
