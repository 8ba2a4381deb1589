import Foundation
import ReorderBasics
import ReorderRedis

/// Whether this node reaches Redis, as its cluster threads last found it: `/healthz` answers 503
/// `degraded` from a call that could not reach Redis until a later call of any part did (they all
/// talk to the same Redis, and an idle part, such as the appender between ops, would otherwise
/// keep an old failure), and `/metrics` shows each followed room's lag. Any thread (a lock).
public final class ClusterHealth: @unchecked Sendable {
  /// One of the threads that talk to Redis.
  enum Part: String, CaseIterable, Sendable {
    case appender, tail, presence, control, storage, summaries
  }

  private let lock = NSLock()
  private var failing: [Part: String] = [:]
  private var logSeqs: [String: UInt64] = [:]

  /// The part's last call reached Redis: so does this node. The change is logged once.
  func succeeded(_ part: Part) {
    let recovered = lock.withLock {
      guard !failing.isEmpty else { return false }
      failing.removeAll()
      return true
    }
    if recovered { Log.log(.info, "redis reachable again", [("part", part.rawValue)]) }
  }

  /// The part's last call could not reach Redis (`error` says why). The change is logged once:
  /// ops are rejected `unavailable` and `/healthz` answers 503 until Redis is reached again.
  func failed(_ part: Part, _ error: RedisError) {
    guard error.isConnectionFailure else { return }
    let first = lock.withLock {
      let first = failing.isEmpty
      failing[part] = error.description
      return first
    }
    if first { Log.log(.warn, "redis unreachable", [("part", part.rawValue), ("error", error.description)]) }
  }

  /// Why Redis is unreachable (the first failing part's error), or nil while every part reaches it.
  public var problem: String? {
    lock.withLock { Part.allCases.lazy.compactMap { self.failing[$0] }.first }
  }

  /// The last seq of each followed room's log, as last read (`reorder:{R}:meta` `seq`).
  public var logSequences: [String: UInt64] { lock.withLock { logSeqs } }

  /// Records the rooms' log seqs read now; rooms not in `seqs` are not followed and are dropped.
  func setLogSequences(_ seqs: [String: UInt64]) { lock.withLock { logSeqs = seqs } }
}

/// Cluster mode's figures for `/metrics`.
public struct ClusterStatistics: Sendable, Equatable {
  /// Round trips and reconnects of this node's Redis connections.
  public var redis: RedisStatistics
  /// Per followed room: ops in its log this node has not applied yet (the log's seq as last read,
  /// every `ClusterControl.refreshSeconds`, minus the room's seq; 0 when caught up).
  public var streamLag: [String: UInt64]

  /// The figures.
  public init(redis: RedisStatistics, streamLag: [String: UInt64]) {
    self.redis = redis
    self.streamLag = streamLag
  }
}
