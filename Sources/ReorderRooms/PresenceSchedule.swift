/// When a room's presence flushes, and whom each flush visits: its token bucket of flushes
/// (`PresencePacing`), the timing of its fan-outs when it is paced by them (`PresenceFanout`), the
/// interval it states, and, in a room flushed in waves, which wave is next.
struct PresenceSchedule: Sendable {
  /// Paces the room's flushes: a flush that sends takes a token. Nil until `pace`, when every
  /// flush may send.
  private(set) var flushes: TokenBucket?
  /// In a room too large for the frame budget, the timing of its fan-outs, which paces it; nil in
  /// other rooms.
  private(set) var fanout: PresenceFanout?
  /// How many flushes write every recipient once (`PresencePacing.waveSize`): more than 1 only
  /// in a room paced by its fan-outs with more recipients than a wave.
  private(set) var waveCount = 1
  /// Where the next wave starts, as a position in the recipients.
  var waveStart = 0
  /// The last flush left recipients outside its wave that were due something: the room is due
  /// again when its pacing allows.
  var waveLeft = false
  /// The room's current interval in ms (as `welcome` and `peers` state it).
  private(set) var intervalMilliseconds = 33

  /// Applies `pacing` for a room of `members` on a server with `connections` open: the flush rate
  /// and burst follow it (see `PresencePacing.interval(connections:members:)`).
  ///
  /// A room that alone would exceed the budget at the server's interval is also paced by its
  /// fan-outs (`PresenceFanout`): one flush at a time, each after the previous fan-out ended and
  /// its gap passed, and never sooner than the budget's interval; its interval is the longer of
  /// the two, a measured one announced only when it moves by more than
  /// `PresenceFanout.announceChange`. Its bucket starts afresh (one token) when it becomes such a
  /// room, so that flushes saved up before do not outlast the switch. Such a room with more
  /// members than `pacing.waveSize` is flushed in waves, one per flush: its bucket then gives one
  /// token per wave, and the interval, each member's, spans the waves.
  /// Returns whether the stated interval changed.
  mutating func pace(_ pacing: PresencePacing, connections: Int, members: Int, audience: Int, now: Double) -> Bool {
    let budget = pacing.interval(connections: connections, members: members, audience: audience)
    var interval = budget
    var burst = Double(pacing.burst)
    if budget > pacing.interval(connections: connections) {
      if fanout == nil {
        fanout = PresenceFanout()
        flushes = nil
      }
      let size = max(1, pacing.waveSize)
      waveCount = max(1, (members + size - 1) / size)
      fanout!.waves = waveCount
      interval = fanout!.interval(shortest: budget) ?? budget
      burst = 1
    } else {
      fanout = nil
      waveCount = 1
    }
    let rate = Double(waveCount) / interval
    let milliseconds = max(1, Int((interval * 1_000).rounded()))
    var changed = false
    if milliseconds != intervalMilliseconds
      && (interval == budget || PresenceFanout.shouldAnnounce(milliseconds, replacing: intervalMilliseconds))
    {
      intervalMilliseconds = milliseconds
      changed = true
    }
    if flushes == nil {
      flushes = TokenBucket(rate: rate, burst: burst, now: now)
    } else {
      flushes!.rate = rate
      flushes!.burst = burst
    }
    return changed
  }

  /// Whether the pacing lets the room flush at `now` (always when unpaced). A tenth of an
  /// interval (at most 2 ms) early counts as on time, for timer jitter.
  /// A room paced by its fan-outs also waits for the last one to end and its gap to pass.
  mutating func mayFlush(now: Double) -> Bool {
    if let fanout, !fanout.allows(now: now) { return false }
    guard flushes != nil else { return true }
    let tolerance = jitter
    return flushes!.hasToken(now: now, tolerance: tolerance)
  }

  /// A flush sent frames: it used up one token, and a fan-out paced room's fan-out is under way.
  mutating func flushed(now: Double) {
    let tolerance = jitter
    _ = flushes?.take(now: now, tolerance: tolerance)
    fanout?.opened(at: now)
  }

  /// A tick at `now` (the transport's, in a later pass of the service loop than any flush before
  /// it, so after that flush's frames were written): a fan-out under way has ended.
  mutating func ticked(now: Double) {
    fanout?.closed(at: now)
  }

  /// How early a tick may come and still count as on time: a tenth of an interval, at most 2 ms.
  var jitter: Double { flushes.map { min(0.002, 0.1 / $0.rate) } ?? 0 }

  /// When the pacing next lets the room flush (seconds); nil when unpaced.
  func nextFlushAt(now: Double) -> Double? {
    guard let fanout else { return flushes?.nextTokenAt }
    return max(fanout.nextAt(now: now), flushes?.nextTokenAt ?? now)
  }
}
