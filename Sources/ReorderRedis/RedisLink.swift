import Foundation

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

/// A connection that is made again when it was lost, with backoff, driven by its caller: it
/// never sleeps and has no thread. Each call either runs on a working connection, or connects
/// first when an attempt is due, or throws `RedisError.unavailable` at once while the backoff
/// waits. One thread uses a link at a time.
///
/// A lost connection is retried at once on the next call (Redis may simply have restarted);
/// failed attempts then wait 50 ms, 100 ms, … up to 5 s. `prepare` runs on every new connection
/// before it is used (load the function library, subscribe again).
///
/// Closures given to `run` and `prepare` state their error type (Swift does not infer typed
/// throws for closures):
/// `try link.run { (redis) throws(RedisError) in try redis.append(ops) }`.
public final class RedisLink: @unchecked Sendable {
  /// Where it connects.
  public let url: RedisURL
  private let timeouts: RedisTimeouts
  private let metrics: RedisMetrics?
  private let prepare: (RedisConnection) throws(RedisError) -> Void
  private let now: () -> Double
  private var backoff: RedisBackoff
  private var connection: RedisConnection?
  private var nextAttempt = 0.0
  private var lastError: RedisError?
  private var hasConnected = false

  /// A link to `url`; nothing is connected until the first call. `now` is a monotonic clock in
  /// seconds (injected by tests).
  public init(
    url: RedisURL, timeouts: RedisTimeouts = RedisTimeouts(), metrics: RedisMetrics? = nil,
    backoff: RedisBackoff = RedisBackoff(),
    now: @escaping () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 },
    prepare: @escaping (RedisConnection) throws(RedisError) -> Void = { _ in }
  ) {
    self.url = url
    self.timeouts = timeouts
    self.metrics = metrics
    self.backoff = backoff
    self.now = now
    self.prepare = prepare
  }

  /// Whether a connection is open and has not failed.
  public var isConnected: Bool { connection.map { !$0.isBroken } ?? false }

  /// The last connection failure, or nil once connected again.
  public var lastFailure: RedisError? { lastError }

  /// The working connection, connecting first when there is none and an attempt is due.
  /// Throws `RedisError.unavailable` while the backoff waits, or the error of the attempt.
  public func connected() throws(RedisError) -> RedisConnection {
    if let connection, !connection.isBroken { return connection }
    connection?.close()
    connection = nil
    let time = now()
    if time < nextAttempt, let lastError {
      throw .unavailable(retryInSeconds: nextAttempt - time, lastError: lastError.description)
    }
    do {
      let fresh = try RedisConnection(url: url, timeouts: timeouts, metrics: metrics)
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

  /// Runs `body` on the working connection (connecting first when due). When the connection
  /// fails during `body` it is dropped, and the next call connects again.
  public func run<T>(_ body: (RedisConnection) throws(RedisError) -> T) throws(RedisError) -> T {
    let connection = try connected()
    do {
      return try body(connection)
    } catch {
      if connection.isBroken {
        lastError = error
        self.connection = nil
        connection.close()
      }
      throw error
    }
  }

  /// Closes the connection; a later call connects again.
  public func close() {
    connection?.close()
    connection = nil
  }
}
