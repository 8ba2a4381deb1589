/// What the transport has done, as one value (`WebSocketServer.statistics`). Counters only grow
/// while the server runs; `open`, `queuedBytes` and `queuedFrames` are the state at the snapshot.
public struct TransportStatistics: Sendable, Equatable {
  /// Websockets open now (accepted by the handler).
  public var open = 0
  /// Websockets the handler accepted, in all.
  public var opened = 0
  /// Accepted websockets that closed, by close code: the one the server sent, else the client's,
  /// else 1006 (the connection was lost without a close frame).
  public var disconnects: [UInt16: Int] = [:]
  /// Upgrades the handler refused with an HTTP status.
  public var refused = 0
  /// Websocket messages received (whole, after reassembly), and their payload bytes.
  public var messagesReceived = 0
  public var bytesReceived = 0
  /// Frames queued to connections (a broadcast counts once per recipient), and their payload bytes.
  public var framesSent = 0
  public var bytesSent = 0
  /// Presence frames dropped because their connection was busy.
  public var presenceDropped = 0
  /// Payload bytes and frames queued now, over every connection.
  public var queuedBytes = 0
  public var queuedFrames = 0
  /// Connections closed because their outgoing queue overflowed, and because a write failed.
  public var overflowCloses = 0
  public var failedWrites = 0
  /// Connections closed with 4008 because they did not read what they were sent, and those watched
  /// as slow readers now (`SlowReaderWatch`).
  public var slowReaderCloses = 0
  public var slowReadersWatched = 0
  /// Writes that carried several messages framed back to back, and how many messages they carried.
  public var corkedWrites = 0
  public var corkedMessages = 0
  /// Fan-outs shared with the second thread.
  public var parallelFanouts = 0
  /// Times the heap was given back to the system.
  public var heapTrims = 0
  /// HTTP requests the handler answered (routed ones; static files are lws' own).
  public var httpRequests = 0

  /// All zero.
  public init() {}
}
