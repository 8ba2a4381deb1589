/// When a drained server gives its freed heap back to the system (`malloc_trim`). Pure: the
/// `HeapTrimmer` asks it and keeps the timer.
///
/// A trim walks the whole heap (slow once many connections have come and gone), so in steady
/// traffic a trim at every drain would stall everyone. So only after a burst (at least
/// `afterBytes` queued since the last trim) has fully drained is a quiet check armed; it trims if
/// nothing was queued since and every queue is still empty, and otherwise comes back, each time
/// twice as late (up to `maxBackoffSeconds`), so steady traffic costs a wake-up every few seconds.
/// Without trims a burst (a thousand clients joining one room) leaves the process at its peak size.
struct HeapTrimPolicy: Equatable {
  /// How long a drained server must stay quiet before it trims.
  static let quietSeconds = 0.25
  /// The longest wait between two checks under steady traffic.
  static let maxBackoffSeconds = 4.0
  /// Queued bytes after which a drained server trims.
  static let afterBytes = 8 << 20

  /// What a quiet check decides.
  enum Check: Equatable {
    /// Trim now.
    case trim
    /// Something was queued meanwhile: check again after this many seconds.
    case recheck(afterSeconds: Double)
  }

  private(set) var bytesSinceTrim = 0
  private(set) var framesQueued = 0
  /// Whether a quiet check is pending.
  private(set) var isArmed = false
  private var framesAtArm = 0
  private var backoff = quietSeconds

  /// A frame of `bytes` was queued.
  mutating func queued(bytes: Int) {
    bytesSinceTrim += bytes
    framesQueued &+= 1
  }

  /// A queue drained (`allDrained`: every queue is empty now). Returns the delay of a quiet check
  /// to arm, or nil.
  mutating func drained(allDrained: Bool) -> Double? {
    guard allDrained, bytesSinceTrim >= Self.afterBytes, !isArmed else { return nil }
    isArmed = true
    framesAtArm = framesQueued
    backoff = Self.quietSeconds
    return backoff
  }

  /// The quiet check is due (`allDrained` as above).
  mutating func check(allDrained: Bool) -> Check {
    guard framesQueued == framesAtArm, allDrained else {
      framesAtArm = framesQueued
      backoff = min(Self.maxBackoffSeconds, backoff * 2)
      return .recheck(afterSeconds: backoff)
    }
    isArmed = false
    bytesSinceTrim = 0
    return .trim
  }
}
