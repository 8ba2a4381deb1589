import Foundation
import ReorderBasics
import ReorderRedis

/// Whether this node reaches Redis, as its cluster threads last found it, and which Redis nodes
/// answer (`ClusterControl`'s probe of every node, each `refreshSeconds`); `/healthz` and
/// `/metrics` read it. Any thread (a lock).
///
/// A part's failure to reach Redis lasts until that part's next call that reaches it, or until a
/// probe finds every node answering (an idle part, such as the appender between ops, would
/// otherwise keep an old failure). So with one Redis down every part fails and stays failed; with
/// one master of a Redis Cluster down, the calls on its slots fail while the others succeed, and
/// the probe names it.
public final class ClusterHealth: @unchecked Sendable {
  /// One of the threads that talk to Redis.
  enum Part: String, CaseIterable, Sendable {
    case appender, tail, presence, control, storage, summaries
  }

  /// What `/healthz` says of Redis.
  public enum State: Sendable, Equatable {
    /// Every part reaches Redis.
    case ok
    /// Some Redis nodes answer and these (`HOST:PORT`) do not: rooms on their slots are
    /// `unavailable`, the others are served.
    case partial(unreachable: [String])
    /// Redis cannot be reached (`problem` says why; `unreachable` names the nodes the last probe
    /// did not reach, if any).
    case down(problem: String, unreachable: [String])
  }

  private let lock = NSLock()
  private var failing: [Part: String] = [:]
  private var probed: [RedisProbe] = []
  private var logSeqs: [String: UInt64] = [:]

  /// The part's last call reached Redis. The change back to every part reaching it is logged once.
  func succeeded(_ part: Part) {
    let recovered = lock.withLock {
      guard failing.removeValue(forKey: part) != nil else { return false }
      return failing.isEmpty && probed.allSatisfy { $0.failure == nil }
    }
    if recovered { Log.log(.info, "redis reachable again", [("part", part.rawValue)]) }
  }

  /// The part's last call could not reach Redis (`error` says why). The change is logged once:
  /// ops are rejected `unavailable` and `/healthz` answers `degraded` until Redis is reached again.
  func failed(_ part: Part, _ error: RedisError) {
    guard error.isConnectionFailure else { return }
    let first = lock.withLock {
      let first = failing.isEmpty && probed.allSatisfy { $0.failure == nil }
      failing[part] = error.description
      return first
    }
    if first { Log.log(.warn, "redis unreachable", [("part", part.rawValue), ("error", error.description)]) }
  }

  /// Records a probe of every Redis node; one where every node answered clears every part's failure.
  func probed(_ results: [RedisProbe]) {
    let (before, after) = lock.withLock {
      let before = state
      probed = results
      if !results.isEmpty && results.allSatisfy({ $0.failure == nil }) { failing.removeAll() }
      return (before, state)
    }
    guard before != after else { return }
    switch after {
    case .ok: Log.log(.info, "redis reachable again", [("part", "probe")])
    case .partial(let nodes): Log.log(.warn, "redis nodes unreachable", [("nodes", nodes.joined(separator: ","))])
    case .down(let problem, _): Log.log(.warn, "redis unreachable", [("part", "probe"), ("error", problem)])
    }
  }

  /// Why Redis is unreachable, or nil while every part and every node reaches it.
  public var problem: String? {
    switch lock.withLock({ state }) {
    case .ok: nil
    case .partial(let nodes): "Redis nodes unreachable: " + nodes.joined(separator: ", ")
    case .down(let problem, _): problem
    }
  }

  /// What `/healthz` says of Redis now.
  public var current: State { lock.withLock { state } }

  /// The state, under the lock.
  private var state: State {
    let unreachable = probed.filter { $0.failure != nil }.map(\.node)
    let reachable = probed.count - unreachable.count
    if failing.isEmpty && unreachable.isEmpty { return .ok }
    if reachable > 0 && !unreachable.isEmpty { return .partial(unreachable: unreachable) }
    let problem =
      Part.allCases.lazy.compactMap { self.failing[$0] }.first
      ?? probed.lazy.compactMap { $0.failure?.description }.first ?? "unknown"
    return .down(problem: problem, unreachable: unreachable)
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
