import Foundation

/// Round-trip latencies of Redis commands with fixed buckets, as Prometheus keeps a histogram
/// (`reorder_redis_command_seconds`): counts per upper bound, the count and the sum.
///
/// One observation is one round trip: a single command, or a whole pipeline. Blocking reads
/// (`XREAD BLOCK`, a subscriber waiting for messages) are not observed: they measure how long
/// nothing happened. The bounds start at 0.1 ms because a local Redis answers in about that
/// (the store's `LatencyBuckets` start at 0.5 ms, an fsync).
public struct RedisLatencyHistogram: Sendable, Equatable {
  /// Upper bounds of the buckets in seconds; one more bucket above the last is `+Inf`.
  public static let bounds: [Double] = [
    0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
  ]

  /// Observations per bucket (not cumulative); the last is above every bound.
  public private(set) var counts = [Int](repeating: 0, count: RedisLatencyHistogram.bounds.count + 1)
  /// Observations.
  public private(set) var count = 0
  /// Sum of the observations, in seconds.
  public private(set) var sum = 0.0

  /// No observations.
  public init() {}

  /// Records one round trip of `seconds` (negative counts as 0).
  /// - Complexity: O(buckets).
  public mutating func record(seconds: Double) {
    let s = max(0, seconds)
    let index = Self.bounds.firstIndex { s <= $0 } ?? Self.bounds.count
    counts[index] += 1
    count += 1
    sum += s
  }

  /// Cumulative counts per upper bound, as Prometheus' `_bucket{le=…}` lines (`+Inf` last).
  public var cumulative: [(le: Double, count: Int)] {
    var running = 0
    return counts.enumerated().map { index, n in
      running += n
      return (index < Self.bounds.count ? Self.bounds[index] : .infinity, running)
    }
  }
}

/// What this node's Redis connections have done so far: a snapshot value for `/metrics`.
public struct RedisStatistics: Sendable, Equatable {
  /// `reorder_redis_command_seconds`: round trips and their latency.
  public var commandSeconds = RedisLatencyHistogram()
  /// `reorder_redis_reconnects_total`: connections a `RedisLink` made after it had had one (its
  /// first connection is not a reconnect, however many attempts it took).
  public var reconnects = 0
  /// Connections that failed during a command (`connectionLost`).
  public var connectionsLost = 0

  /// Nothing recorded yet.
  public init() {}
}

/// The counters every connection of a node records into (thread safe); `snapshot` is the value
/// the server exports.
public final class RedisMetrics: @unchecked Sendable {
  private let lock = NSLock()
  private var current = RedisStatistics()

  /// No observations yet.
  public init() {}

  /// What was recorded so far.
  public var snapshot: RedisStatistics {
    lock.lock()
    defer { lock.unlock() }
    return current
  }

  func recordRoundTrip(seconds: Double) {
    lock.lock()
    current.commandSeconds.record(seconds: seconds)
    lock.unlock()
  }

  func recordReconnect() {
    lock.lock()
    current.reconnects += 1
    lock.unlock()
  }

  func recordConnectionLost() {
    lock.lock()
    current.connectionsLost += 1
    lock.unlock()
  }
}
