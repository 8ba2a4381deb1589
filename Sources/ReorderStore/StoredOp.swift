/// One op of a room's log: its room-wide sequence number and its opaque encoded bytes.
public struct StoredOp: Sendable, Equatable {
  /// The room-wide sequence number (gap-free and increasing, assigned by the room). At most `Int64.max`.
  public var seq: UInt64
  /// The op's encoded bytes; the store never looks inside.
  public var payload: [UInt8]

  /// Creates an op to store.
  public init(seq: UInt64, payload: [UInt8]) {
    self.seq = seq
    self.payload = payload
  }
}

/// Counters about the writer, for tests, benchmarks and health output.
public struct StoreStatistics: Sendable, Equatable {
  /// Transactions committed by the writer (each is one fsync with `synchronous=FULL`).
  public var commits: Int = 0
  /// `append` calls made durable.
  public var appends: Int = 0
  /// Ops made durable.
  public var ops: Int = 0
  /// Snapshots written.
  public var snapshots: Int = 0
  /// `append` calls that failed (their completion got an error).
  public var failedAppends: Int = 0
  /// The largest number of appends written in one transaction.
  public var largestBatch: Int = 0
  /// Total wall time spent from BEGIN to the end of COMMIT, in nanoseconds.
  public var commitNanoseconds: UInt64 = 0
  /// Jobs (appends, snapshots) queued and not yet taken by the writer when the counters were read.
  public var queued: Int = 0

  /// Creates zeroed statistics.
  public init() {}
}
