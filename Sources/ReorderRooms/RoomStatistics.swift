/// What the rooms of a registry are doing and have done: a snapshot value (`RoomRegistry.statistics`).
///
/// Counts are totals since the registry was made (rooms that were unloaded included); the gauges
/// (`roomsLoaded`, `roomsLoading`, `connections`, `members`) are the state at the snapshot.
public struct RoomStatistics: Sendable, Equatable {
  /// Rooms in memory.
  public var roomsLoaded = 0
  /// Rooms whose `.load` is not answered yet.
  public var roomsLoading = 0
  /// Open connections (joined or not).
  public var connections = 0
  /// Connections that said `hello` and are in a room.
  public var members = 0
  /// Loads answered with a room, and with an error.
  public var loadsCompleted = 0
  public var loadsFailed = 0
  /// Frames received, by `type` (`hello`, `op`, `drag`, `refresh`), plus `invalid` (not decodable: bad JSON,
  /// unknown type, …), `binary`, and `dropped` (over the frame rate limit, not decoded).
  public var messagesReceived: [String: Int] = [:]
  /// Ops applied (each got a seq).
  public var opsApplied = 0
  /// Re-sent op ids answered with the `applied` they already had.
  public var opsRepeated = 0
  /// Ops rejected, by error code (`rate_limited`, `unknown_item`, …).
  public var opsRejected: [String: Int] = [:]
  /// `drags` frames handed to the driver (one per recipient).
  public var presenceFramesSent = 0
  /// Times a member was due a presence frame but got none because its connection was busy (it
  /// gets the latest state later, in one frame).
  public var presenceFramesHeld = 0
  /// Join/leave notices sent: `peer` frames (small rooms) and `peers` frames (large rooms), one per
  /// recipient.
  public var peerFramesSent = 0
  /// Reads of old ops (`.read` actions) asked for.
  public var reads = 0
  /// Tokens refused (in `hello` or `refresh`), by reason (`missing`, `expired`, `bad_signature`, …).
  public var authFailures: [String: Int] = [:]

  /// Zeros.
  public init() {}
}

/// The counts a room keeps (summed into `RoomStatistics`).
struct RoomCounters: Sendable, Equatable {
  var opsApplied = 0
  var opsRepeated = 0
  var opsRejected: [String: Int] = [:]
  var presenceFramesSent = 0
  var presenceFramesHeld = 0
  var peerFramesSent = 0
  var reads = 0

  /// Adds `other`'s counts (a room unloaded keeps counting in the registry's totals).
  mutating func add(_ other: RoomCounters) {
    opsApplied += other.opsApplied
    opsRepeated += other.opsRepeated
    opsRejected.merge(other.opsRejected, uniquingKeysWith: +)
    presenceFramesSent += other.presenceFramesSent
    presenceFramesHeld += other.presenceFramesHeld
    peerFramesSent += other.peerFramesSent
    reads += other.reads
  }

  /// Frames to recipients in these actions that match `isCounted` (one per `send`, one per
  /// recipient of a `broadcast`).
  static func recipients(_ actions: [RoomAction], where isCounted: ([UInt8]) -> Bool = { _ in true }) -> Int {
    var n = 0
    for action in actions {
      switch action {
      case .send(_, let bytes, _): if isCounted(bytes) { n += 1 }
      case .broadcast(let connections, let bytes, _): if isCounted(bytes) { n += connections.count }
      default: break
      }
    }
    return n
  }
}

extension RoomRegistry {
  /// A snapshot of the rooms' statistics.
  /// - Complexity: O(rooms).
  public var statistics: RoomStatistics {
    var totals = counters
    for room in rooms.values { totals.add(room.counters) }
    var s = RoomStatistics()
    s.roomsLoaded = rooms.count
    s.roomsLoading = loading.count
    s.connections = connections.count
    s.members = rooms.values.reduce(0) { $0 + $1.memberCount }
    s.loadsCompleted = loadsCompleted
    s.loadsFailed = loadsFailed
    s.messagesReceived = messagesReceived
    s.opsApplied = totals.opsApplied
    s.opsRepeated = totals.opsRepeated
    s.opsRejected = totals.opsRejected
    s.presenceFramesSent = totals.presenceFramesSent
    s.presenceFramesHeld = totals.presenceFramesHeld
    s.peerFramesSent = totals.peerFramesSent
    s.reads = totals.reads
    s.authFailures = authFailures
    return s
  }
}
