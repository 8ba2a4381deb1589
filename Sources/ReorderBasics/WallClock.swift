import Foundation

/// The wall clock (UTC): the times a user reads (an op's `at` in the history). Durations and
/// deadlines use `MonotonicClock`, which a changed system time does not move.
public enum WallClock {
  /// Now, in milliseconds since 1970-01-01 00:00 UTC.
  @Sendable public static func milliseconds() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
}
