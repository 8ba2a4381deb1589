import Testing

@testable import ReorderRooms

/// A room too large for the frame budget is paced by its fan-outs (`PresenceFanout`): the next
/// flush waits for the previous fan-out to end (the next tick) and a gap proportional to it.
@Suite("Presence paced by fan-outs")
struct PresenceFanoutTests {
  @Test("A fan-out blocks flushes until it is closed, then for a gap in proportion to its duration")
  func gapFollowsDuration() {
    var fanout = PresenceFanout()
    #expect(fanout.allows(now: 0))
    #expect(fanout.interval(shortest: 0.01) == nil)
    fanout.opened(at: 10)
    #expect(!fanout.allows(now: 10.1))
    #expect(fanout.nextAt(now: 10.1) == 10.1)  // due at once: the next tick closes it
    fanout.closed(at: 10.25)
    #expect(fanout.duration == 0.25)
    #expect(fanout.notBefore == 10.25 + PresenceFanout.gapRatio * 0.25)
    #expect(!fanout.allows(now: 10.25 + PresenceFanout.gapRatio * 0.25 - 0.001))
    #expect(fanout.allows(now: 10.25 + PresenceFanout.gapRatio * 0.25))
    #expect(fanout.interval(shortest: 0.01) == (1 + PresenceFanout.gapRatio) * 0.25)
  }

  @Test("Durations are smoothed; the interval stays within the shortest and the longest")
  func smoothedAndBounded() {
    var fanout = PresenceFanout()
    fanout.opened(at: 0)
    fanout.closed(at: 0.1)
    fanout.opened(at: 1)
    fanout.closed(at: 1.02)
    // Halfway from 100 ms to the newest 20 ms; the gap follows the newest alone.
    #expect(abs(fanout.duration! - 0.06) < 1e-12)
    #expect(abs(fanout.notBefore - (1.02 + PresenceFanout.gapRatio * 0.02)) < 1e-12)
    #expect(fanout.interval(shortest: 0.5) == 0.5)
    fanout.opened(at: 2)
    fanout.closed(at: 12)
    #expect(fanout.interval(shortest: 0.01) == PresenceFanout.longestInterval)
    #expect(fanout.notBefore == 12 + PresenceFanout.longestInterval)  // a 10 s fan-out: a gap of 1 s
  }

  @Test("Closing with no fan-out open changes nothing")
  func closeWithoutOpen() {
    var fanout = PresenceFanout()
    fanout.closed(at: 5)
    #expect(fanout == PresenceFanout())
  }

  @Test("The announced interval changes only when it moves by more than a quarter")
  func announceHysteresis() {
    #expect(!PresenceFanout.shouldAnnounce(110, replacing: 100))
    #expect(!PresenceFanout.shouldAnnounce(75, replacing: 100))
    #expect(PresenceFanout.shouldAnnounce(126, replacing: 100))
    #expect(PresenceFanout.shouldAnnounce(74, replacing: 100))
    #expect(PresenceFanout.shouldAnnounce(40, replacing: 0))
  }

  /// `drags` frames `c` received so far.
  func drags(_ h: RoomsHarness, _ c: ConnectionHandle) -> Int { h.frames(c, type: "drags").count }

  func drag(_ h: RoomsHarness, _ c: ConnectionHandle, x: Double) -> Double? {
    h.send(c, #"{"type":"drag","phase":"move","item":"p","x":\#(x)}"#)
    let (actions, due) = h.registry.flushPresenceEarly(after: c, now: h.now)
    h.perform(actions)
    return due
  }

  /// A room of 3 members at a budget of 30 frames/s: the budget alone gives it 100 ms, above the
  /// server's longest interval (33 ms), so it is paced by its fan-outs too. Its member `b` has
  /// had one `drags` frame (the leading edge at `start`), and `a` has a drag waiting.
  func roomAboveTheBudget() -> (h: RoomsHarness, a: ConnectionHandle, b: ConnectionHandle, start: Double) {
    let h = RoomsHarness()
    h.registry.presencePacing = PresencePacing(minHz: 30, maxHz: 1_000, framesPerSecond: 30)
    let a = h.join(1)
    let b = h.join(2)
    h.join(3)
    h.seed(a, ids: ["p"])
    _ = h.take(b)
    let start = h.now
    #expect(drag(h, a, x: 0.1) == start)  // sent at once; the tick that ends its fan-out is due now
    #expect(drags(h, b) == 1)
    h.now += 0.001
    #expect(drag(h, a, x: 0.2) == h.now)  // held: the fan-out has not ended (no tick yet)
    #expect(drags(h, b) == 1)
    return (h, a, b, start)
  }

  @Test("A fan-out slower than the budget allows stretches the interval to (1 + gap) times its duration")
  func slowFanoutStretchesTheInterval() throws {
    let (h, _, b, start) = roomAboveTheBudget()
    // The next tick comes 150 ms after the flush: the fan-out took 150 ms, so the drag waits its
    // gap more, past the budget's 100 ms.
    h.tick(advancing: 0.149)
    #expect(drags(h, b) == 1)
    let due = try #require(h.registry.nextTick(now: h.now))
    #expect(abs(due - (start + 0.15 + PresenceFanout.gapRatio * 0.15)) < 1e-9)
    h.now = due
    h.tick(advancing: 0)
    #expect(drags(h, b) == 2)
    // Its interval is now the measured one, (1 + gap) × 150 ms, as a newcomer is told (to the
    // millisecond: the 150 ms is a difference of two clock readings).
    let c = h.join(4)
    let told = h.frames(c, type: "welcome").first?["presence_interval_ms"]
    guard case .number(let milliseconds) = told else {
      Issue.record("no presence_interval_ms in \(String(describing: told))")
      return
    }
    #expect(abs(milliseconds - (1 + PresenceFanout.gapRatio) * 150) <= 1)
  }

  @Test("A quick fan-out leaves the budget's interval")
  func quickFanoutKeepsTheBudget() throws {
    let (h, _, b, start) = roomAboveTheBudget()
    h.tick(advancing: 0.019)  // the fan-out took 20 ms: its gap ends at 25 ms, the budget's at 100
    let due = try #require(h.registry.nextTick(now: h.now))
    #expect(abs(due - (start + 0.1)) < 1e-9)
    h.now = due
    h.tick(advancing: 0)
    #expect(drags(h, b) == 2)
    // 4 members at 30 frames/s would be 133 ms: a large room slows to 8 Hz (125 ms) at most.
    let c = h.join(4)
    #expect(
      h.frames(c, type: "welcome").first?["presence_interval_ms"] == .number(1_000 / PresencePacing.largeRoomMinHz))
  }

  @Test("A room within the budget is not paced by its fan-outs")
  func smallRoomUnchanged() {
    let h = RoomsHarness()
    h.registry.presencePacing = PresencePacing(minHz: 30, maxHz: 1_000, framesPerSecond: 40_000)
    let a = h.join(1)
    let b = h.join(2)
    h.seed(a, ids: ["p"])
    _ = h.take(b)
    #expect(drag(h, a, x: 0.1) == nil)
    #expect(h.registry.room("r")?.presence.schedule.fanout == nil)
  }
}
