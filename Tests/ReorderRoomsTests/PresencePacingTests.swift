import Testing

@testable import ReorderRooms

@Suite("Presence pacing")
struct PresencePacingTests {
  let pacing = PresencePacing(minHz: 30, maxHz: 500, framesPerSecond: 40_000)

  @Test("A light server flushes at the top rate, a loaded one at the floor, in between by the budget")
  func intervalFollowsConnections() {
    #expect(pacing.interval(connections: 0) == 1.0 / 500)
    #expect(pacing.interval(connections: 20) == 1.0 / 500)
    #expect(pacing.interval(connections: 400) == 400.0 / 40_000)
    #expect(pacing.interval(connections: 1_000) == 1_000.0 / 40_000)
    #expect(pacing.interval(connections: 2_000) == 1.0 / 30)
    #expect(pacing.interval(connections: 100_000) == 1.0 / 30)
  }

  @Test("Rooms dragging at once share the budget: their members together set the interval, down to 8 Hz")
  func audienceSharesTheBudget() {
    #expect(pacing.interval(connections: 2_000, members: 100, audience: 1_000) == 1.0 / 30)
    // A light server keeps its short interval: the audience counts only beyond `1 / minHz`.
    #expect(pacing.interval(connections: 100, members: 100, audience: 100) == 100.0 / 40_000)
    #expect(pacing.interval(connections: 2_000, members: 100, audience: 4_000) == 4_000.0 / 40_000)
    #expect(abs(pacing.interval(connections: 2_000, members: 100, audience: 4_100) - 0.105) < 1e-12, "5 ms steps")
    #expect(abs(pacing.interval(connections: 2_000, members: 100, audience: 4_150) - 0.105) < 1e-12)
    #expect(pacing.interval(connections: 2_000, members: 100, audience: 100_000) == 1.0 / 8)
    #expect(pacing.interval(connections: 2_000, members: 4_000, audience: 0) == 4_000.0 / 40_000)
    #expect(PresencePacing.fixed(hz: 30).interval(connections: 2_000, members: 100, audience: 100_000) == 1.0 / 30)
  }

  @Test("A top rate at or below the floor means a fixed rate; nonsense values are clamped")
  func fixedAndClamped() {
    #expect(PresencePacing(minHz: 30, maxHz: 10, framesPerSecond: 1).interval(connections: 1_000) == 1.0 / 30)
    #expect(PresencePacing.fixed(hz: 60).interval(connections: 1) == 1.0 / 60)
    #expect(PresencePacing.fixed(hz: 60).interval(connections: 1_000_000) == 1.0 / 60)
    #expect(PresencePacing(minHz: 0, maxHz: 0, framesPerSecond: 0).interval(connections: 5) == 1)
  }

  @Test("An adaptive pacing saves up to 4 flushes after a quiet spell; a fixed rate saves none")
  func burstByMode() {
    #expect(PresencePacing(minHz: 30, maxHz: 1_000, framesPerSecond: 40_000).burst == 4)
    #expect(PresencePacing(minHz: 30, maxHz: 30, framesPerSecond: 40_000).burst == 1)
    #expect(PresencePacing(minHz: 30, maxHz: 10, framesPerSecond: 40_000).burst == 1)
    #expect(PresencePacing(minHz: 30, maxHz: 1_000, framesPerSecond: 40_000, burst: 2).burst == 2)
  }

  /// `drags` frames `c` received so far.
  func drags(_ h: RoomsHarness, _ c: ConnectionHandle) -> Int { h.frames(c, type: "drags").count }

  func drag(_ h: RoomsHarness, _ c: ConnectionHandle, x: Double) -> Double? {
    h.send(c, #"{"type":"drag","phase":"move","item":"p","x":\#(x)}"#)
    let (actions, due) = h.registry.flushPresenceEarly(after: c, now: h.now)
    h.perform(actions)
    return due
  }

  /// A room under `pacing` where `a` drags item `p` and `b` watches (plus `extra` idle connections).
  func room(_ pacing: PresencePacing, extra: Int = 0) -> (RoomsHarness, ConnectionHandle, ConnectionHandle) {
    let h = RoomsHarness()
    h.registry.presencePacing = pacing
    let a = h.join(1)
    let b = h.join(2)
    for i in 0..<extra { h.join(UInt64(3 + i)) }
    h.seed(a, ids: ["p"])
    _ = h.take(b)
    return (h, a, b)
  }

  @Test("In a busy room a drag waits only until the room is due, and the caller is told when that is")
  func busyRoomIsDueAfterTheShortInterval() {
    let (h, a, b) = room(PresencePacing(minHz: 30, maxHz: 500, framesPerSecond: 40_000, burst: 1))
    let start = h.now
    #expect(drag(h, a, x: 0.1) == nil)  // leading edge: sent at once
    #expect(drags(h, b) == 1)
    h.now += 0.0005
    let due = drag(h, a, x: 0.2)
    #expect(due == start + 1.0 / 500)
    #expect(drags(h, b) == 1)
    h.now = due!
    h.tick(advancing: 0)
    #expect(drags(h, b) == 2)  // 2 ms after the first, not a 33 ms tick later
    #expect(drag(h, a, x: 0.3) != nil)
  }

  @Test("With many connections the same room is held to the budget's interval")
  func loadedServerSlowsDown() {
    let (h, a, b) = room(PresencePacing(minHz: 10, maxHz: 500, framesPerSecond: 300, burst: 1), extra: 10)
    let start = h.now
    #expect(drag(h, a, x: 0.1) == nil)
    h.now += 0.001
    #expect(drag(h, a, x: 0.2) == start + 12.0 / 300)
    h.now = start + 0.03
    h.tick(advancing: 0)
    #expect(drags(h, b) == 1)  // only the leading-edge frame so far
  }

  @Test("After a quiet spell a room relays up to `burst` drags at once, then one per interval")
  func burstThenPaced() {
    let (h, a, b) = room(PresencePacing(minHz: 30, maxHz: 100, framesPerSecond: 40_000, burst: 3))
    let start = h.now
    for (i, x) in [0.1, 0.2, 0.3].enumerated() {
      h.now = start + Double(i) * 0.001
      #expect(drag(h, a, x: x) == nil)
      #expect(drags(h, b) == i + 1)
    }
    h.now = start + 0.003
    let due = drag(h, a, x: 0.4)
    #expect(due != nil && abs(due! - (start + 0.01)) < 1e-9)  // 3 tokens spent over 2 ms: 0.2 back
    #expect(drags(h, b) == 3)
    h.now = due!
    h.tick(advancing: 0)
    #expect(drags(h, b) == 4)
  }

  @Test("A token bucket's tolerance lets a slightly early tick count, and the debt is paid back")
  func tolerance() {
    var bucket = TokenBucket(rate: 100, burst: 1, now: 0)
    var took = bucket.take(now: 0)
    #expect(took)
    took = bucket.take(now: 0.0095)
    #expect(!took)
    took = bucket.take(now: 0.0095, tolerance: 0.001)
    #expect(took)
    #expect(bucket.tokens < 0)
    var has = bucket.hasToken(now: 0.0195)
    #expect(!has)
    has = bucket.hasToken(now: 0.0201)
    #expect(has)
  }

  /// `drags` frames a watcher of room `r` receives in 1 s of drags at 100/s in `r`, with `others`
  /// more rooms of the same size dragging at the same time, under a budget of 1,000 frames/s.
  func framesWatched(besides others: Int) -> Int {
    let h = RoomsHarness()
    h.registry.presencePacing = PresencePacing(minHz: 30, maxHz: 500, framesPerSecond: 1_000, burst: 1)
    var draggers: [ConnectionHandle] = []
    var watcher = ConnectionHandle(0)
    for room in 0...others {
      let name = "r\(room)"
      let dragger = h.join(UInt64(room * 100 + 1), room: name)
      if room == 0 { watcher = h.join(2, room: name) }
      for i in 3..<40 { h.join(UInt64(room * 100 + i), room: name) }
      h.seed(dragger, ids: ["p"])
      draggers.append(dragger)
    }
    _ = h.take(watcher)
    for step in 0..<100 {
      for dragger in draggers {
        h.send(dragger, #"{"type":"drag","phase":"move","item":"p","x":\#(Double(step) / 100)}"#)
        h.perform(h.registry.flushPresenceEarly(after: dragger, now: h.now).actions)
      }
      h.tick(advancing: 0.01)
    }
    return h.frames(watcher, type: "drags").count
  }

  @Test("A room's drags go out less often while other rooms drag too: their audiences share the budget")
  func otherRoomsDraggingSlowARoom() {
    // Alone: 39 members under 1,000 frames/s, about every 40 ms. With two more such rooms
    // dragging, 117 members share it: about every 120 ms.
    let alone = framesWatched(besides: 0)
    let shared = framesWatched(besides: 2)
    #expect((20...27).contains(alone), "alone: \(alone)")
    #expect((7...10).contains(shared), "with two more rooms: \(shared)")
  }
}
