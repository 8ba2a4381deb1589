import ReorderBasics

/// Counters about the writer, for tests, benchmarks and health output: a snapshot value.
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
  /// Per durable append: from `append` to the end of the COMMIT that made it durable (queueing,
  /// the batch before it, the fsync).
  public var commitLatency = LatencyBuckets()
  /// Jobs (appends, snapshots) queued and not yet taken by the writer when the counters were read.
  public var queued: Int = 0

  /// Creates zeroed statistics.
  public init() {}
}
