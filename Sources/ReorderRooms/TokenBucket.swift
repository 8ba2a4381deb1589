/// A token bucket: `rate` tokens per second, at most `burst` saved up. Time is injected.
public struct TokenBucket: Sendable, Equatable {
  /// Tokens added per second.
  public var rate: Double
  /// Most tokens held.
  public var burst: Double
  /// Tokens now (as of `updated`).
  public private(set) var tokens: Double
  /// When `tokens` was last brought up to date, in seconds.
  public private(set) var updated: Double

  /// A full bucket at time `now`.
  public init(rate: Double, burst: Double, now: Double) {
    precondition(rate > 0 && burst >= 1, "a token bucket needs a positive rate and a burst of at least 1")
    self.rate = rate
    self.burst = burst
    self.tokens = burst
    self.updated = now
  }

  /// Takes one token if there is one; returns whether it did. With a `tolerance` (seconds), a token
  /// due within that time counts as there (the bucket then goes below zero, by less than one).
  /// - Complexity: O(1).
  public mutating func take(now: Double, tolerance: Double = 0) -> Bool {
    guard hasToken(now: now, tolerance: tolerance) else { return false }
    tokens -= 1
    return true
  }

  /// Whether a token is available at `now`, or within `tolerance` seconds of it (brings the bucket
  /// up to date; takes nothing).
  /// - Complexity: O(1).
  public mutating func hasToken(now: Double, tolerance: Double = 0) -> Bool {
    if now > updated {
      tokens = min(burst, tokens + (now - updated) * rate)
      updated = now
    }
    return tokens >= 1 - max(0, tolerance) * rate
  }

  /// When the next token is available, in seconds (`updated` when one is already).
  public var nextTokenAt: Double { updated + max(0, 1 - tokens) / rate }
}
