import Testing

@testable import ReorderRooms

/// A room paced by its fan-outs with more members than a wave (`PresencePacing.waveSize`) is
/// flushed a wave at a time: each flush writes to at most a wave, every member is written once
/// per cycle of waves, and each wave gets the state of the moment it is written.
@Suite("Presence in waves")
struct PresenceWaveTests {
  /// 7 members at a budget of 30 frames/s (paced by its fan-outs, as in `PresenceFanoutTests`)
  /// with waves of 2: 4 waves. Member 1 has item `p` to drag; every inbox is empty.
  func room() -> (h: RoomsHarness, a: ConnectionHandle, others: [ConnectionHandle]) {
    let h = RoomsHarness()
    var pacing = PresencePacing(minHz: 30, maxHz: 1_000, framesPerSecond: 30)
    pacing.waveSize = 2
    h.registry.presencePacing = pacing
    let a = h.join(1)
    let others = (2...7).map { h.join(UInt64($0)) }
    h.seed(a, ids: ["p"])
    for c in [a] + others { _ = h.take(c) }
    return (h, a, others)
  }

  func send(_ h: RoomsHarness, _ a: ConnectionHandle, phase: String, x: Double) {
    h.send(a, #"{"type":"drag","phase":"\#(phase)","item":"p","x":\#(x)}"#)
    h.perform(h.registry.flushPresenceEarly(after: a, now: h.now).actions)
  }

  /// The `x` of every drag update `c` received, in order.
  func xs(_ h: RoomsHarness, _ c: ConnectionHandle) -> [Double] {
    h.frames(c, type: "drags").flatMap { $0["updates"]?.arrayItems ?? [] }.compactMap {
      if case .number(let x)? = $0["x"] { return x }
      return nil
    }
  }

  /// Ticks 10 ms at a time until nothing is due (at most `limit` ticks); returns, per tick that
  /// delivered drags, the members that got one.
  @discardableResult
  func settle(_ h: RoomsHarness, _ members: [ConnectionHandle], limit: Int = 400) -> [[ConnectionHandle]] {
    var waves: [[ConnectionHandle]] = []
    var seen = Dictionary(uniqueKeysWithValues: members.map { ($0, h.frames($0, type: "drags").count) })
    for _ in 0..<limit {
      guard h.registry.nextTick(now: h.now) != nil else { break }
      h.tick(advancing: 0.01)
      let got = members.filter { h.frames($0, type: "drags").count > seen[$0]! }
      for c in got { seen[c] = h.frames(c, type: "drags").count }
      if !got.isEmpty { waves.append(got) }
    }
    return waves
  }

  @Test("Each flush writes at most a wave; every member gets the drag once per cycle")
  func wavesCoverEveryMemberOnce() {
    let (h, a, others) = room()
    #expect(h.registry.room("r")?.presence.schedule.waveCount == 4)
    send(h, a, phase: "start", x: 0.1)
    let first = others.filter { !h.frames($0, type: "drags").isEmpty }
    let waves = [first].filter { !$0.isEmpty } + settle(h, others)
    #expect(waves.allSatisfy { $0.count <= 2 }, "\(waves)")
    #expect(waves.count >= 3, "6 others in waves of 2 (one wave holds the dragger): \(waves)")
    #expect(Set(waves.flatMap { $0 }) == Set(others))
    for c in others { #expect(xs(h, c) == [0.1], "member \(c)") }
    #expect(h.frames(a, type: "drags").isEmpty, "its own drag is not sent back")
  }

  @Test("A wave gets the state of the moment it is written, not the one of the first wave")
  func laterWavesGetFresherState() {
    let (h, a, others) = room()
    send(h, a, phase: "start", x: 0.1)
    settle(h, others)
    for c in others { _ = h.take(c) }
    send(h, a, phase: "move", x: 0.2)
    var early = others.filter { !h.frames($0, type: "drags").isEmpty }
    while early.isEmpty, h.registry.nextTick(now: h.now) != nil {
      h.tick(advancing: 0.01)
      early = others.filter { !h.frames($0, type: "drags").isEmpty }
    }
    #expect(!early.isEmpty && early.count <= 2)
    send(h, a, phase: "move", x: 0.3)
    settle(h, others)
    for c in others {
      #expect(xs(h, c) == (early.contains(c) ? [0.2, 0.3] : [0.3]), "member \(c)")
    }
  }

  @Test("A drag's end reaches every wave, and is forgotten only once all of them had it")
  func endReachesEveryWave() throws {
    let (h, a, others) = room()
    send(h, a, phase: "start", x: 0.1)
    settle(h, others)
    for c in others { _ = h.take(c) }
    send(h, a, phase: "end", x: 0.4)
    var sawEndKept = false
    var ticks = 0
    while h.registry.nextTick(now: h.now) != nil, ticks < 400 {
      let reached = others.filter { !h.frames($0, type: "drags").isEmpty }.count
      if reached > 0 && reached < others.count {
        sawEndKept = sawEndKept || !(h.registry.room("r")?.presence.drags.latest.isEmpty ?? true)
      }
      h.tick(advancing: 0.01)
      ticks += 1
    }
    #expect(sawEndKept, "the end is kept while a wave has not had it")
    for c in others {
      let phases = h.frames(c, type: "drags").flatMap { $0["updates"]?.arrayItems ?? [] }.map { $0["phase"] }
      #expect(phases == [.string("end")], "member \(c)")
    }
    #expect(try #require(h.registry.room("r")).presence.drags.latest.isEmpty)
  }

  @Test("The interval members are told spans the waves: waves × one wave's fan-out, with no gap between waves")
  func intervalSpansTheWaves() throws {
    let (h, a, _) = room()
    for step in 0..<40 {
      send(h, a, phase: step == 0 ? "start" : "move", x: Double(step) / 100)
      h.tick(advancing: 0.05)  // each wave's fan-out ends at the next tick: it took 50 ms
    }
    let c = h.join(8)
    let told = h.frames(c, type: "welcome").first?["presence_interval_ms"]
    guard case .number(let milliseconds) = told else {
      Issue.record("no presence_interval_ms in \(String(describing: told))")
      return
    }
    #expect(abs(milliseconds - 4 * 50) <= 1, "no gap between waves")
  }

  @Test("A room of at most one wave is written whole at every flush")
  func smallRoomIsOneWave() {
    let h = RoomsHarness()
    h.registry.presencePacing = PresencePacing(minHz: 30, maxHz: 1_000, framesPerSecond: 30)
    let a = h.join(1)
    let others = (2...7).map { h.join(UInt64($0)) }
    h.seed(a, ids: ["p"])
    for c in [a] + others { _ = h.take(c) }
    #expect(h.registry.room("r")?.presence.schedule.waveCount == 1)
    send(h, a, phase: "start", x: 0.1)
    for c in others { #expect(xs(h, c) == [0.1], "member \(c)") }
  }
}
