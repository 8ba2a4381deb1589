/// How a room too large for the frame budget paces its flushes: by the time its fan-outs take.
///
/// A flush of such a room is one fan-out: to all its members, or in a room of more than
/// `PresencePacing.waveSize` to one wave of them (`waves` flushes write everyone once), written
/// when the service loop's pass ends. The next flush starts only once the previous fan-out has
/// finished (the first tick after it, in a later pass of the loop, closes it) and then its `gap`
/// has passed, and no sooner than the budget's interval over the waves (`PresencePacing`). So a
/// room written whole takes at most `1 / (1 + gapRatio)` of the service thread, and a room in
/// waves holds it for one wave at a time, whatever one send costs on the machine: at a fixed
/// interval a slow or busy machine starts a fan-out before the last one was written, and every
/// frame then queues behind stale ones. Connections that have not drained what they were sent are
/// skipped (busy) and get the latest state at a later flush.
///
/// The interval it amounts to, `waves × (1 + gap) × duration` (durations smoothed over flushes)
/// or the budget's when longer, is what the room announces (`presence_interval_ms`), changed only
/// when it moves by more than `announceChange`, so that a jittering duration does not send every
/// member a `peers` frame.
public struct PresenceFanout: Sendable, Equatable {
  /// The gap after a fan-out of a room written whole, in multiples of its duration: a quarter, so
  /// a room whose fan-outs are the server's main work may take up to 4/5 of the service thread,
  /// and its interval plus the fan-out (2.25 × its duration) stays within a 250 ms window for
  /// fan-outs of up to 111 ms, while the other rooms get a pass at least every quarter of a
  /// fan-out. In waves a member's frame is at most its interval plus one wave old (1.25 × the
  /// time to write every member once, in four waves): within 250 ms while that takes up to 200 ms.
  public static let gapRatio = 0.25
  /// The weight of the newest duration in the smoothed one.
  public static let smoothing = 0.5
  /// The longest gap and interval this pacing chooses (seconds): a room whose fan-outs take
  /// longer still starts a flush at most this long after the last one ended, its busy members
  /// skipped.
  public static let longestInterval = 1.0
  /// The relative change of the interval that is announced (a smaller one is not).
  public static let announceChange = 0.25

  /// How many fan-outs write every member once (at least 1; set by the room's pacing).
  public var waves = 1 {
    didSet { waves = max(1, waves) }
  }

  /// The gap after each fan-out, in multiples of its duration: `gapRatio` for a room written
  /// whole, none between waves, since the loop serves every other connection between two waves
  /// anyway (a wave is short) and a gap per wave would add up to a longer interval.
  public var gap: Double { waves > 1 ? 0 : Self.gapRatio }

  /// When the fan-out under way started (seconds), nil when none is.
  public private(set) var openedAt: Double?
  /// The smoothed duration of the room's fan-outs (seconds), nil before the first one ended.
  public private(set) var duration: Double?
  /// No flush before this (seconds): the end of the last fan-out plus its gap (at most
  /// `longestInterval`).
  public private(set) var notBefore = -Double.infinity

  /// No fan-out timed yet.
  public init() {}

  /// A flush started at `now` and sent frames.
  public mutating func opened(at now: Double) {
    openedAt = now
  }

  /// The first tick after the flush's pass: the fan-out that opened ended by `now`. Does nothing
  /// when none is open.
  public mutating func closed(at now: Double) {
    guard let start = openedAt else { return }
    openedAt = nil
    let took = max(0, now - start)
    let smoothed = duration.map { $0 + Self.smoothing * (took - $0) } ?? took
    duration = smoothed
    notBefore = now + min(Self.longestInterval, gap * took)
  }

  /// Whether a flush may start at `now`: no fan-out open and its gap over.
  public func allows(now: Double) -> Bool { openedAt == nil && now >= notBefore }

  /// When the next flush may start (seconds): `now` while a fan-out is open (a tick then closes
  /// it), else the end of the gap.
  public func nextAt(now: Double) -> Double { openedAt == nil ? notBefore : now }

  /// The interval the measured fan-outs amount to (each member is written once per `waves`
  /// fan-outs), within `[shortest, longestInterval]`; nil before the first fan-out ended.
  public func interval(shortest: Double) -> Double? {
    guard let duration else { return nil }
    return min(Self.longestInterval, max(shortest, Double(waves) * (1 + gap) * duration))
  }

  /// Whether an interval of `new` ms should replace the announced `old` ms.
  public static func shouldAnnounce(_ new: Int, replacing old: Int) -> Bool {
    guard old > 0 else { return true }
    return abs(Double(new - old)) > announceChange * Double(old)
  }
}
