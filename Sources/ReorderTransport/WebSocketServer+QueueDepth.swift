extension WebSocketServer {
  /// Service thread only. Whether any connection is waiting for its socket or watched as a slow
  /// reader: when none is, no connection is busy and the rooms need not ask about each one
  /// (`isBusy(_:)`).
  public var hasBacklog: Bool {
    loop.assertServiceThread()
    return writes.backloggedQueues > 0 || !writes.slowReaders.watched.isEmpty
  }

  /// Service thread only. Whether `connection` is too busy for presence (`ServerConnection.isBusy`:
  /// the one place that is decided); presence sent to a busy connection is dropped, so the rooms
  /// hold its drags back (latest wins) until it drains. False when it is gone.
  public func isBusy(_ connection: ConnectionID) -> Bool {
    loop.assertServiceThread()
    return connections[connection]?.isBusy ?? false
  }

  /// Service thread only. What the transport has done so far (`TransportStatistics`).
  public var statistics: TransportStatistics {
    loop.assertServiceThread()
    var s = counted
    s.open = connectionCount
    s.framesSent = writes.framesSent
    s.bytesSent = writes.bytesSent
    s.presenceDropped = writes.presenceDropped
    for conn in connections.all {
      s.queuedBytes += conn.outgoing.bytes
      s.queuedFrames += conn.outgoing.count
    }
    s.overflowCloses = writes.overflowCloses
    s.failedWrites = writes.failedWrites
    s.slowReaderCloses = writes.slowReaders.closes
    s.slowReadersWatched = writes.slowReaders.watched.count
    s.corkedWrites = writes.corkedWrites
    s.corkedMessages = writes.corkedMessages
    s.parallelFanouts = writes.parallelFanouts
    s.heapTrims = writes.trimmer.trims
    return s
  }
}
