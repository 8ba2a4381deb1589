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
