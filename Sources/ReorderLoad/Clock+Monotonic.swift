#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Microseconds on the monotonic clock: every timestamp of a run (send, arrival, samples) uses it,
/// so a latency is a subtraction. `t` and op ids carry these values, which only this process reads.
public enum MonotonicClock {
  /// Now, in microseconds since an arbitrary origin.
  @inline(__always)
  public static func microseconds() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Int64(spec.tv_sec) * 1_000_000 + Int64(spec.tv_nsec) / 1_000
  }

  /// Sleeps until the monotonic clock reaches `deadline` (µs); returns at once if it has passed.
  public static func sleep(until deadline: Int64) {
    let remaining = deadline - microseconds()
    guard remaining > 0 else { return }
    var request = timespec(tv_sec: Int(remaining / 1_000_000), tv_nsec: Int(remaining % 1_000_000) * 1_000)
    var left = timespec()
    while nanosleep(&request, &left) != 0 && errno == EINTR { request = left }
  }
}
