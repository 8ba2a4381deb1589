/// When the clients of a run got in: the first attempt, the first and the last `welcome`.
public struct JoinTimes: Sendable, Codable, Equatable {
  /// Clients that got their `welcome` (ready).
  public var connected: Int
  /// First connection attempt → last `welcome` (s): how long filling the rooms took.
  public var joinSeconds: Double
  /// First `welcome` → last `welcome` (s): "every client connected within N s of the first".
  public var spanSeconds: Double
  /// Connection attempts allowed per second (`--connect-rate`; 0: only the concurrency bound).
  public var connectRate: Double

  /// From what the shards published (nil when nobody got in).
  init?(_ progress: ShardProgress, connectRate: Double) {
    guard let first = progress.firstConnectAt, let firstReady = progress.firstReadyAt,
      let lastReady = progress.lastReadyAt
    else { return nil }
    connected = progress.ready
    joinSeconds = Double(lastReady - first) / 1e6
    spanSeconds = Double(lastReady - firstReady) / 1e6
    self.connectRate = connectRate
  }

  /// The given figures (tests, summaries).
  public init(connected: Int, joinSeconds: Double, spanSeconds: Double, connectRate: Double = 0) {
    self.connected = connected
    self.joinSeconds = joinSeconds
    self.spanSeconds = spanSeconds
    self.connectRate = connectRate
  }
}

/// What preparing a big board took (`--seed-only`, `--seed-moves`).
public struct SeedingSummary: Sendable, Codable, Equatable {
  /// Connect of the first clients → every room ready (s).
  public var seconds: Double
  /// Ops (list, inserts, moves) applied for it, over every room.
  public var opsApplied: Int
}
