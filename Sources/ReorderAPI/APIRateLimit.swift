import ReorderRooms

/// Requests per second per API key (`--api-requests-per-second`): a token bucket per key, bursts
/// of up to twice the rate. A request over it gets 429 with `Retry-After`. Service thread only.
public struct APIRateLimit {
  /// Tokens added per second per key.
  public let rate: Double
  private var buckets: [Int: TokenBucket] = [:]

  /// A limit of `rate` requests per second per key.
  public init(rate: Int) {
    self.rate = Double(max(1, rate))
  }

  /// Takes one request of key number `key` at `now` (seconds); nil when it may go on, else the
  /// whole seconds until it may (for `Retry-After`).
  public mutating func take(key: Int, now: Double) -> Int? {
    var bucket = buckets[key] ?? TokenBucket(rate: rate, burst: 2 * rate, now: now)
    defer { buckets[key] = bucket }
    if bucket.take(now: now) { return nil }
    return max(1, Int((bucket.nextTokenAt - now).rounded(.up)))
  }
}
