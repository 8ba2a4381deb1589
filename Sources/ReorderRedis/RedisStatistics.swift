import Foundation
import ReorderBasics

/// What this node's Redis connections have done so far: a snapshot value for `/metrics`.
public struct RedisStatistics: Sendable, Equatable {
  /// `reorder_redis_command_seconds`: round trips and their latency. One observation is one
  /// round trip: a single command, or a whole pipeline. Blocking reads (`XREAD BLOCK`, a
  /// subscriber waiting for messages) are not observed: they measure how long nothing happened.
  public var commandSeconds = LatencyBuckets(bounds: LatencyBuckets.roundTripBounds)
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
public final class RedisMetrics: Sendable {
  private let current = Locked(RedisStatistics())

  /// No observations yet.
  public init() {}

  /// What was recorded so far.
  public var snapshot: RedisStatistics { current.snapshot }

  func recordRoundTrip(seconds: Double) {
    current.withLock { $0.commandSeconds.record(seconds: seconds) }
  }

  func recordReconnect() {
    current.withLock { $0.reconnects += 1 }
  }

  func recordConnectionLost() {
    current.withLock { $0.connectionsLost += 1 }
  }
}
