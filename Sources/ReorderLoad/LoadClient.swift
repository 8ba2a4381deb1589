/// One simulated client. Made by the driver, then handed to its shard (through `post`, which
/// orders the hand-over) and only touched on that shard's service thread.
final class LoadClient: @unchecked Sendable {
  enum Phase { case idle, connecting, ready, closed }

  /// Index in the run (0..<clients).
  let index: Int
  /// Room index.
  let room: Int
  /// Node index: which of the `--url` list this client connects to.
  let node: Int
  var connection: (any LoadSocket)?
  var phase = Phase.idle
  var connectStarted: Int64 = 0
  var receiver = ReceiverState()
  /// Whether this client accounts drag updates one by one (`--measure-receivers`); the others only
  /// count the frames.
  var measured = true
  /// Set for a slow reader (`--slow-readers`): holds its reading to the configured rate.
  var throttle: ReadThrottle?
  /// Seeds the room when this is its first client.
  var seeder: RoomSeeder?
  /// The drag this client sends, once it drags.
  var drag: Int?
  var dragSeq: Int32 = 0
  var dragItem = ""
  var dragList = ""
  /// Committed moves sent so far (numbers op ids).
  var movesSent = 0

  init(index: Int, room: Int, node: Int = 0) {
    self.index = index
    self.room = room
    self.node = node
  }
}

/// Snapshot a shard publishes for the driver thread (progress line, phase decisions).
struct ShardProgress: Sendable {
  var ready = 0
  var failed = 0
  var closedUnexpectedly = 0
  var counters = LoadCounters()
  /// Drag latency histogram of the last whole second.
  var lastSecondDragLatency = LatencyHistogram()
  var lastSecondAckLatency = LatencyHistogram()
  /// Boards of rooms seeded by this shard's clients, by room index.
  var boards: [Int: RoomBoard] = [:]
  var seedingFailures: [String] = []
  /// Seeding ops applied so far, over this shard's seeders.
  var seedOpsApplied = 0
  /// First connection attempt, first and last `welcome` (monotonic µs), on this shard.
  var firstConnectAt: Int64?
  var firstReadyAt: Int64?
  var lastReadyAt: Int64?
  /// Why the last connection that never became ready failed.
  var lastConnectFailure: String?
}
