import Foundation
import ReorderBasics

/// When to try connecting again after failures: exponential, from `initialSeconds` up to
/// `maximumSeconds`. No jitter: a Redis serves a handful of nodes, not a herd.
public struct RedisBackoff: Sendable, Equatable {
  /// The wait after the first failure.
  public var initialSeconds: Double
  /// The longest wait.
  public var maximumSeconds: Double
  /// Each failure multiplies the wait by this.
  public var multiplier: Double
  /// Failures since the last success.
  public private(set) var failures = 0

  /// A backoff from `initialSeconds` to `maximumSeconds`, multiplied by `multiplier` each time.
  public init(initialSeconds: Double = 0.05, maximumSeconds: Double = 5, multiplier: Double = 2) {
    self.initialSeconds = initialSeconds
    self.maximumSeconds = maximumSeconds
    self.multiplier = multiplier
  }

  /// Counts a failure; the seconds to wait before the next attempt.
  public mutating func failed() -> Double {
    let delay = min(maximumSeconds, initialSeconds * pow(multiplier, Double(failures)))
    failures += 1
    return delay
  }

  /// Counts a success: the next failure waits `initialSeconds` again.
  public mutating func succeeded() { failures = 0 }
}

/// A node's way to Redis, made again when it was lost, driven by its caller: it never sleeps and
/// has no thread. One thread uses a link at a time.
///
/// - One Redis: one connection. Each call either runs on a working connection, or connects first
///   when an attempt is due, or throws `RedisError.unavailable` at once while the backoff waits. A
///   lost connection is retried at once on the next call (Redis may simply have restarted); failed
///   attempts then wait 50 ms, 100 ms, … up to 5 s.
/// - A Redis Cluster: a `RedisClusterClient`, which keeps one connection per master and the same
///   backoff per master, so that a dead master fails only the calls on its slots.
///
/// `prepare` runs on every new connection before it is used (load the function library).
/// Closures given to `run` and `prepare` state their error type (Swift does not infer typed
/// throws for closures):
/// `try link.run { (redis) throws(RedisError) in try redis.append(ops) }`.
public final class RedisLink: @unchecked Sendable {
  /// Where it connects.
  public let target: RedisTarget
  private let timeouts: RedisTimeouts
  private let metrics: RedisMetrics?
  private let prepare: (RedisConnection) throws(RedisError) -> Void
  private let now: () -> Double
  private var backoff: RedisBackoff
  private var connection: RedisConnection?
  private var cluster: RedisClusterClient?
  private var nextAttempt = 0.0
  private var lastError: RedisError?
  private var hasConnected = false

  /// A link to one Redis at `url` (see `init(target:…)`).
  public convenience init(
    url: RedisURL, timeouts: RedisTimeouts = RedisTimeouts(), metrics: RedisMetrics? = nil,
    backoff: RedisBackoff = RedisBackoff(),
    now: @escaping () -> Double = { MonotonicClock.now() },
    prepare: @escaping (RedisConnection) throws(RedisError) -> Void = { _ in }
  ) {
    self.init(target: .single(url), timeouts: timeouts, metrics: metrics, backoff: backoff, now: now, prepare: prepare)
  }

  /// A link to `target`; nothing is connected until the first call. `now` is a monotonic clock in
  /// seconds (injected by tests).
  public init(
    target: RedisTarget, timeouts: RedisTimeouts = RedisTimeouts(), metrics: RedisMetrics? = nil,
    backoff: RedisBackoff = RedisBackoff(),
    now: @escaping () -> Double = { MonotonicClock.now() },
    prepare: @escaping (RedisConnection) throws(RedisError) -> Void = { _ in }
  ) {
    self.target = target
    self.timeouts = timeouts
    self.metrics = metrics
    self.backoff = backoff
    self.now = now
    self.prepare = prepare
  }

  /// Whether the last call reached Redis (one Redis: a connection is open and has not failed).
  public var isConnected: Bool {
    if cluster != nil { return lastError == nil }
    return connection.map { !$0.isBroken } ?? false
  }

  /// The last connection failure, or nil once connected again.
  public var lastFailure: RedisError? { lastError }

  /// Where commands go now, connecting first (one Redis) when there is no connection and an
  /// attempt is due. Throws `RedisError.unavailable` while the backoff waits, or the error of
  /// the attempt.
  public func connected() throws(RedisError) -> any RedisCommands {
    if case .cluster(let seeds) = target {
      if let cluster { return cluster }
      let made = RedisClusterClient(seeds: seeds, timeouts: timeouts, metrics: metrics, prepare: prepare)
      cluster = made
      return made
    }
    if let connection, !connection.isBroken { return connection }
    connection?.close()
    connection = nil
    let time = now()
    if time < nextAttempt, let lastError {
      throw .unavailable(retryInSeconds: nextAttempt - time, lastError: lastError.description)
    }
    do {
      let fresh = try RedisConnection(url: target.urls[0], timeouts: timeouts, metrics: metrics)
      try prepare(fresh)
      connection = fresh
      if hasConnected { metrics?.recordReconnect() }
      hasConnected = true
      backoff.succeeded()
      lastError = nil
      return fresh
    } catch {
      lastError = error
      nextAttempt = time + backoff.failed()
      throw error
    }
  }

  /// Runs `body` on where commands go (connecting first when due). When one Redis' connection
  /// fails during `body` it is dropped, and the next call connects again.
  public func run<T>(_ body: (any RedisCommands) throws(RedisError) -> T) throws(RedisError) -> T {
    let commands = try connected()
    do {
      let value = try body(commands)
      if cluster != nil { lastError = nil }
      return value
    } catch {
      if error.isConnectionFailure, cluster != nil { lastError = error }
      if let connection, connection.isBroken {
        lastError = error
        self.connection = nil
        connection.close()
      }
      throw error
    }
  }

  /// Closes every connection; a later call connects again.
  public func close() {
    connection?.close()
    connection = nil
    cluster?.close()
    cluster = nil
  }
}
