/// What the slow readers (`--slow-readers`) got, accounted apart from the other clients so that
/// the others' latency and coverage are theirs alone.
struct SlowReaderFigures: Sendable {
  /// Frames with drag updates the slow readers received during the traffic and the drain.
  var dragFrames = 0
  /// Drag updates in those frames (each a position of one remote drag).
  var dragUpdates = 0
  /// Bytes of server messages they read (payloads).
  var bytes = 0
  /// Age of each drag update they got: sent → read (µs).
  var dragAge = LatencyHistogram()
  /// Times one of them stopped reading to keep to its rate.
  var pauses = 0
  /// Slow readers closed during the run (`code reason` → count), by the server or the network.
  var closes: [String: Int] = [:]

  mutating func merge(_ other: SlowReaderFigures) {
    dragFrames += other.dragFrames
    dragUpdates += other.dragUpdates
    bytes += other.bytes
    dragAge.merge(other.dragAge)
    pauses += other.pauses
    closes.merge(other.closes, uniquingKeysWith: +)
  }
}

/// The slow readers' and the other receivers' figures of one run, side by side (`--json`
/// `slowReaders`). The run's own `dragLatency`, `coverage` and `staleness` are the others'.
public struct SlowReaderSummary: Sendable, Codable, Equatable {
  /// Slow readers, and the rate each read at most (bytes/s).
  public var clients: Int
  public var bytesPerSecond: Int
  /// Receivers that read at full speed (every client but the slow ones).
  public var otherClients: Int
  /// Frames with drag updates per second per client: the slow ones' and the others'. Rates are
  /// over the traffic and the drain after it (the slow ones read what was queued for them then).
  public var framesPerSecondPerClient: Double
  public var otherFramesPerSecondPerClient: Double
  /// Drag updates received per second per slow client.
  public var updatesPerSecondPerClient: Double
  /// Bytes read per second per slow client.
  public var bytesPerSecondPerClient: Double
  /// Age of the drag updates the slow ones got (sent → read, ms).
  public var dragAge: LatencySummary
  /// How often they stopped reading to keep to the rate.
  public var pauses: Int
  /// Slow readers closed during the run, by `code reason` (e.g. `1008 'outgoing queue overflow: …'`).
  public var closes: [String: Int]
  /// Of those, closed with each code (`"none"`: no close frame).
  public var closedByCode: [String: Int]
}
