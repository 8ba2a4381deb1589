import Foundation
import ReorderRedis

/// Whether this node reaches Redis, as its cluster threads last found it: `/healthz` answers 503
/// `degraded` from a call that could not reach Redis until a later call of any part did (they all
/// talk to the same Redis, and an idle part, such as the appender between ops, would otherwise
/// keep an old failure), and `/metrics` shows each followed room's lag. Any thread (a lock).
final class ClusterHealth: @unchecked Sendable {
  /// One of the threads that talk to Redis.
  enum Part: String, CaseIterable, Sendable {
    case appender, tail, presence, control, storage
  }

  private let lock = NSLock()
  private var failing: [Part: String] = [:]
  private var logSeqs: [String: UInt64] = [:]

  /// The part's last call reached Redis: so does this node.
  func succeeded(_ part: Part) {
    lock.withLock { if !failing.isEmpty { failing.removeAll() } }
  }

  /// The part's last call could not reach Redis (`error` says why).
  func failed(_ part: Part, _ error: RedisError) {
    guard error.isConnectionFailure else { return }
    lock.withLock { failing[part] = error.description }
  }

  /// Why Redis is unreachable (the first failing part's error), or nil while every part reaches it.
  var problem: String? {
    lock.withLock { Part.allCases.lazy.compactMap { self.failing[$0] }.first }
  }

  /// The last seq of each followed room's log, as last read (`reorder:{R}:meta` `seq`).
  var logSequences: [String: UInt64] { lock.withLock { logSeqs } }

  /// Records the rooms' log seqs read now, dropping the rooms no longer followed.
  func setLogSequences(_ seqs: [String: UInt64]) { lock.withLock { logSeqs = seqs } }
}

/// Cluster mode's figures for `/metrics`.
public struct ClusterStatistics: Sendable, Equatable {
  /// Round trips and reconnects of this node's Redis connections.
  public var redis: RedisStatistics
  /// Per followed room: ops in its log this node has not applied yet (the log's seq as last read,
  /// every `ClusterControl.refreshSeconds`, minus the room's seq; 0 when caught up).
  public var streamLag: [String: UInt64]
}
