import CLibWebSockets

extension WebSocketServer {
  /// Service thread only. Whether any connection has frames waiting for its socket: when none
  /// has, no connection is busy and the rooms need not ask about each one (`queuedFrames(_:)`).
  public var hasQueuedFrames: Bool {
    loop.assertServiceThread()
    return backloggedQueues > 0
  }

  /// Service thread only. Frames queued for `connection` that are waiting for its socket (a write
  /// was attempted and it did not take them yet); 0 when everything sent to it so far is written or
  /// leaves at the end of this pass of the service loop; nil when it is gone.
  ///
  /// Lets the rooms hold presence back (latest wins) for a connection that has not drained its
  /// previous frames, instead of queueing stale drags behind them.
  public func queuedFrames(_ connection: ConnectionID) -> Int? {
    loop.assertServiceThread()
    guard let conn = connectionsByID[connection] else { return nil }
    return conn.backlogged ? conn.outgoing.count : 0
  }
}

extension WebSocketServer {
  /// Service thread only. Backpressure: once a connection has more than a quarter of
  /// `maxQueueBytes` queued, the server stops reading from it (lws rx flow control) until its queue
  /// is down to a sixteenth. A client that sends faster than it reads what its messages cause (acks,
  /// broadcasts) is slowed by TCP instead of growing the queue until it overflows and is closed; a
  /// client that does not read at all still overflows (others' broadcasts keep coming).
  func pauseReadingIfBacklogged(_ conn: ServerConnection) {
    guard !conn.readingPaused, conn.outgoing.bytes > conn.outgoing.limitBytes / 4 else { return }
    conn.readingPaused = true
    _ = lws_rx_flow_control(conn.wsi, Int32(LWS_RXFLOW_REASON_FLAG_PROCESS_NOW))
  }

  /// Service thread only. Resumes reading from a paused connection whose queue has drained.
  func resumeReadingIfDrained(_ conn: ServerConnection) {
    guard conn.readingPaused, conn.outgoing.bytes <= conn.outgoing.limitBytes / 16 else { return }
    conn.readingPaused = false
    _ = lws_rx_flow_control(conn.wsi, 1 | Int32(LWS_RXFLOW_REASON_FLAG_PROCESS_NOW))
  }
}
