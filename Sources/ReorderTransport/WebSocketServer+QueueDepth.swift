extension WebSocketServer {
  /// Service thread only. Frames queued for `connection` and not yet written; nil when it is gone.
  ///
  /// Lets the rooms hold presence back (latest wins) for a connection that has not drained its
  /// previous frames, instead of queueing stale drags behind them.
  public func queuedFrames(_ connection: ConnectionID) -> Int? {
    loop.assertServiceThread()
    return connectionsByID[connection]?.outgoing.count
  }
}

extension WebSocketServer {
  /// The periodic tick's interval in seconds (0 when there is no tick); any thread.
  public var tickInterval: Double { Double(configuration.tickIntervalMilliseconds) / 1_000 }
}
