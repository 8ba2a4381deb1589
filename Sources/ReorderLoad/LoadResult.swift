/// One step of a ramp: its load and what came out.
public struct RampStep: Sendable, Codable, Equatable {
  /// Draggers active during the step.
  public var draggers: Int
  /// Committed moves offered per second during the step.
  public var moveRate: Double
  /// Seconds of traffic the step spans (`fromSecond ..< toSecond`).
  public var fromSecond: Int
  public var toSecond: Int
  /// Update × receiver pairs offered per second (updates sent × receivers).
  public var offeredPerSecond: Double
  /// Drag updates delivered to others per second.
  public var deliveredPerSecond: Double
  /// Drag updates covered per second.
  public var coveredPerSecond: Double
  /// Moves acknowledged per second.
  public var acknowledgedPerSecond: Double
  /// p50 and p99 of drag latency during the step (ms).
  public var dragP50: Double? = nil
  public var dragP99: Double
  /// p99 (and p50) of ack latency during the step (ms).
  public var ackP99: Double
  public var ackP50: Double? = nil
}

/// One node of `--url` and its share of the clients.
public struct NodeShare: Sendable, Codable, Equatable {
  /// The node's origin (`ws://HOST:PORT`); a URL given twice appears twice.
  public var url: String
  /// Clients assigned to it (round-robin by position in the room).
  public var clients: Int
  /// Of those, clients that became ready (`welcome`; opened, for the mirror).
  public var connected: Int
}

/// Everything one run measured; encoded as the `--json` report.
public struct LoadResult: Sendable, Codable, Equatable {
  public var label: String
  public var title: String
  public var mode: LoadConfiguration.Mode
  public var url: String
  public var clients: Int
  public var rooms: Int
  public var draggers: Int
  public var dragRate: Double
  public var moveRate: Double
  public var ramp: Bool
  /// Wall-clock start, ISO 8601.
  public var startedAt: String
  /// Seconds of traffic (sending), excluding connect and drain.
  public var trafficSeconds: Double
  /// Seconds it took to connect every client.
  public var connectSeconds: Double
  /// Seconds after that until the clients stopped receiving join traffic.
  public var settleSeconds: Double? = nil
  /// When the clients got in (first attempt, first and last `welcome`).
  public var join: JoinTimes? = nil
  /// The window of `coverage` (ms).
  public var coverageWindowMilliseconds: Double? = nil
  /// The websocket client the clients ran on (`epoll` or `lws`; `--client-io`), when `reorder load`
  /// chose it (nil for a runner given a context factory of its own, as in tests).
  public var clientIO: String? = nil
  /// What the client joining and leaving `--loader-room` did.
  public var loader: LoaderSummary? = nil
  /// What preparing the rooms took, for a big board.
  public var seeding: SeedingSummary? = nil
  public var counters: LoadCounters
  /// Connect → ready (ms).
  public var connect: LatencySummary
  /// Drag update sent → seen by another client (ms).
  public var dragLatency: LatencySummary
  /// Age of the freshest known position of each active remote drag, sampled at receivers (ms).
  public var staleness: LatencySummary
  /// Per receiver, the longest time without a drag frame during the traffic (ms): fairness
  /// between connections (a starved receiver shows here even when delivered frames are fresh).
  public var receiverSilence: LatencySummary? = nil
  /// Move sent → `applied` at the sender (ms).
  public var ackLatency: LatencySummary
  /// Move sent → `applied` at the others (ms).
  public var remoteApplyLatency: LatencySummary
  /// Update × receiver pairs offered per second.
  public var offeredPerSecond: Double
  /// Drag updates delivered to others per second.
  public var deliveredPerSecond: Double
  /// Drag updates covered per second.
  public var coveredPerSecond: Double
  /// Frames with drag updates received per second.
  public var framesPerSecond: Double
  /// covered / expected (0…1; 1 when nothing was expected).
  public var coverage: Double
  /// Moves acknowledged per second.
  public var acknowledgedPerSecond: Double
  /// Per-second counts.
  public var series: ThroughputSeries
  /// p99 drag latency per second (ms).
  public var dragP99PerSecond: [Double]
  /// p99 ack latency per second (ms).
  public var ackP99PerSecond: [Double]
  /// Drag latency histogram for plotting: upper edges (ms) and counts (one more count than edges).
  public var dragLatencyEdgesMs: [Double]
  public var dragLatencyCounts: [UInt64]
  /// Ack latency histogram for plotting (same edges).
  public var ackLatencyCounts: [UInt64]
  /// The server process, with `--server-pid`.
  public var server: ProcessUsage?
  /// This load process.
  public var loadClient: ProcessUsage?
  /// Ramp steps, with `--ramp`.
  public var steps: [RampStep]
  /// The step with the most deliveries (drags) or acknowledgements (moves), with `--ramp`.
  public var best: RampStep?
  /// Problems worth a look (connect failures, seeding failures…).
  public var notes: [String]
  /// The machine's 1-minute load average at the start and at the end of the run (the machines
  /// are shared: a high load means the figures are noisy).
  public var loadAverage: [Double] = []
  /// The nodes of `--url` in order with their clients (nil in results from before the list).
  public var nodes: [NodeShare]? = nil
  /// Drag update sent → seen by a client on another node than the dragger (ms); nil with one URL.
  public var crossNodeDragLatency: LatencySummary? = nil
  /// What the slow readers got beside the others, with `--slow-readers`; `dragLatency`,
  /// `coverage`, `staleness` and `receiverSilence` are then the other clients' alone.
  public var slowReaders: SlowReaderSummary? = nil

  /// Plot edges of latency histograms, in µs: 1 ms … 10 s, roughly ×1.5 apart.
  static let plotEdges: [UInt64] = {
    var edges: [UInt64] = []
    var value = 500.0
    while value < 10_000_000 {
      edges.append(UInt64(value))
      value *= 1.5
    }
    return edges
  }()
}
