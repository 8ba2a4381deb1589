#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The monotonic clock (`CLOCK_MONOTONIC`), the one clock of durations and deadlines: the `now`
/// the rooms are driven with (seconds), the load tool's timestamps (microseconds, so a latency is
/// a subtraction), a worker's deadlines. Its origin is arbitrary: its values mean nothing outside
/// this process.
public enum MonotonicClock {
  /// Now, in seconds.
  @inline(__always)
  public static func now() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
  }

  /// Now, in microseconds.
  @inline(__always)
  public static func microseconds() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Int64(spec.tv_sec) * 1_000_000 + Int64(spec.tv_nsec) / 1_000
  }

  /// Sleeps until the clock reaches `deadline` (µs); returns at once if it has passed.
  public static func sleep(until deadline: Int64) {
    let remaining = deadline - microseconds()
    guard remaining > 0 else { return }
    var request = timespec(tv_sec: Int(remaining / 1_000_000), tv_nsec: Int(remaining % 1_000_000) * 1_000)
    var left = timespec()
    while nanosleep(&request, &left) != 0 && errno == EINTR { request = left }
  }
}
