import Testing

@testable import ReorderRooms

@Suite("Rooms of thousands")
struct LargeRoomTests {
  func harness(pacing: PresencePacing = .fixed(hz: 30)) -> RoomsHarness {
    var limits = RoomLimits()
    limits.maxConnectionsPerRoom = 20_000
    let h = RoomsHarness(limits: limits)
    h.registry.presencePacing = pacing
    return h
  }

  /// Joins `count` members (ids from `first`), with a presence tick after every `tickEvery` joins.
  func storm(_ h: RoomsHarness, count: Int, first: UInt64 = 1, tickEvery: Int) {
    for i in 0..<count {
      h.join(first + UInt64(i), name: "m\(first + UInt64(i))")
      if (i + 1) % tickEvery == 0 { h.tick() }
    }
    // Members that know 100 peers get their count at most every `countRefresh`.
    h.tick(advancing: Presence.countRefresh)
  }

  func peersFrames(_ h: RoomsHarness, _ c: ConnectionHandle) -> [JSONValue] { h.frames(c, type: "peers") }

  @Test("A join storm of 5,000 into one room costs O(n) frames; welcomes are bounded; peers frames count exactly")
  func joinStorm() throws {
    let n = 5_000
    let sample: Set<ConnectionHandle> = [ConnectionHandle(1), ConnectionHandle(150), ConnectionHandle(UInt64(n))]
    func run(_ count: Int) -> RoomsHarness {
      let h = harness()
      h.keepsInbox = { sample.contains($0) }
      storm(h, count: count, tickEvery: count / 10)
      return h
    }
    let half = run(n / 2)
    let h = run(n)
    // Welcomes, the immediate `peer` frames of the first 100, and one `peers` frame per member per
    // tick (11 ticks): linear in n, where a `peer` frame to everyone per join would be n²/2.
    #expect(h.frameCounts["welcome"] == n)
    #expect(h.totalFrames <= 13 * n, "\(h.frameCounts)")
    #expect(Double(h.totalFrames) / Double(half.totalFrames) < 2.2, "\(h.frameCounts) vs \(half.frameCounts)")
    #expect(h.frameCounts["peer"]! <= 100 * 99 / 2)

    let last = try #require(h.frames(ConnectionHandle(UInt64(n)), type: "welcome").first)
    guard case .array(let listed)? = last["peers"] else {
      Issue.record("no peers")
      return
    }
    #expect(listed.count == Presence.listedPeers)
    #expect(last["peer_count"] == .number(Double(n - 1)))
    #expect(last["presence_interval_ms"] == .number(33))
    #expect(listed.first?["name"] == .string("m1"), "the first to join are listed first")

    for c in sample.subtracting([ConnectionHandle(UInt64(n))]) {
      let frames = peersFrames(h, c)
      #expect(!frames.isEmpty)
      #expect(frames.last?["count"] == .number(Double(n - 1)), "count is the exact number of other peers")
      for frame in frames {
        guard case .array(let joined)? = frame["joined"] else { continue }
        #expect(joined.count <= Presence.listedPeers)
      }
    }
    #expect(h.registry.statistics.members == n)
    // Bytes stay O(1) per join too: a member is told of at most about `listedPeers` peers; after
    // that its frames carry the count only.
    for c in sample {
      let named =
        h.frames(c, type: "peers").compactMap { $0["joined"]?.arrayValue?.count }.reduce(0, +)
        + h.frames(c, type: "peer").count + (h.frames(c, type: "welcome").first?["peers"]?.arrayValue?.count ?? 0)
      #expect(named <= 2 * Presence.listedPeers, "connection \(c) was told of \(named) peers")
    }
  }

  @Test(
    "Once a member knows 100 peers, later joins reach it as a count, and leaves of sessions nobody heard of are not listed"
  )
  func countOnlyPastTheBound() {
    let h = harness()
    storm(h, count: 300, tickEvery: 50)
    let a = ConnectionHandle(1)
    _ = h.take(a)
    h.join(400)
    h.close(ConnectionHandle(250))
    h.close(ConnectionHandle(2))
    h.tick()
    #expect(h.take(a).isEmpty, "a count-only update waits for the refresh")
    #expect(h.registry.nextTick(room: "r", now: h.now) != nil)
    h.tick(advancing: Presence.countRefresh)
    let frame = h.take(a).first
    #expect(frame?["type"] == .string("peers"))
    #expect(frame?["joined"] == .array([]))
    #expect(frame?["left"] == .array([.string("s2")]), "s2 was announced to everyone; s250 to no one")
    #expect(frame?["count"] == .number(298))
  }

  @Test("Every peers frame's count is what the recipient's view says at that tick")
  func countsTrackMembership() {
    var limits = RoomLimits()
    limits.largeRoomMembers = 3
    let h = RoomsHarness(limits: limits)
    let a = h.join(1)
    for id in 2...5 { h.join(UInt64(id)) }
    h.tick()
    #expect(peersFrames(h, a).last?["count"] == .number(4))
    h.close(ConnectionHandle(2))
    h.close(ConnectionHandle(3))
    h.tick()
    #expect(peersFrames(h, a).last?["count"] == .number(2))
    #expect(peersFrames(h, a).last?["left"] == .array([.string("s2"), .string("s3")]))
  }

  @Test("In a large room joins and leaves go out at the tick, one peers frame per member, no peer frames")
  func coalescedLeaves() {
    var limits = RoomLimits()
    limits.largeRoomMembers = 10
    let h = RoomsHarness(limits: limits)
    for id in 1...20 { h.join(UInt64(id)) }
    h.tick()
    for id in 1...20 { _ = h.take(ConnectionHandle(UInt64(id))) }
    for id in 11...15 { h.close(ConnectionHandle(UInt64(id))) }
    h.join(21, name: "Late")
    #expect(h.frames(ConnectionHandle(1), type: "peer").isEmpty)
    #expect(h.frames(ConnectionHandle(1), type: "peers").isEmpty)
    h.tick()
    let frames = h.take(ConnectionHandle(1))
    #expect(frames.count == 1)
    #expect(frames.first?["type"] == .string("peers"))
    #expect(frames.first?["left"] == .array((11...15).map { .string("s\($0)") }))
    #expect(
      frames.first?["joined"]
        == .array([.object([("session", .string("s21")), ("name", .string("Late")), ("color", .string("#123456"))])]))
    #expect(frames.first?["count"] == .number(15))
    #expect(frames.first?["presence_interval_ms"] == nil, "the interval did not change")
    // The newcomer's welcome already listed everyone: its frame at the tick has nothing for it.
    #expect(h.frames(ConnectionHandle(21), type: "peers").isEmpty)
  }

  @Test("A large room everyone left is not due again until it unloads")
  func emptiedRoomIsNotDue() throws {
    var limits = RoomLimits()
    limits.largeRoomMembers = 10
    let h = RoomsHarness(limits: limits)
    for id in 1...20 { h.join(UInt64(id)) }
    h.tick()
    // The leaves are notices for the next tick; the last leave takes them with it.
    for id in 1...20 { h.close(ConnectionHandle(UInt64(id))) }
    h.tick()
    let unload = try #require(h.registry.room("r")?.unloadDue(now: h.now))
    #expect(h.registry.nextTick(now: h.now) == unload, "due only to unload, not at every tick")
  }

  @Test("A session that joins and leaves between two ticks appears in neither list")
  func joinAndLeaveCancel() {
    var limits = RoomLimits()
    limits.largeRoomMembers = 2
    let h = RoomsHarness(limits: limits)
    for id in 1...3 { h.join(UInt64(id)) }
    h.tick()
    _ = h.take(ConnectionHandle(1))
    h.join(4)
    h.close(ConnectionHandle(4))
    h.join(5)
    h.tick()
    let frame = h.take(ConnectionHandle(1)).first
    #expect(frame?["joined"]?.jsonText.contains("s4") == false)
    #expect(frame?["left"] == .array([]))
    #expect(frame?["count"] == .number(3))
  }

  @Test("A busy member of a large room gets the notices it missed in one later frame")
  func busyGetsNoticesLater() {
    var limits = RoomLimits()
    limits.largeRoomMembers = 2
    let h = RoomsHarness(limits: limits)
    for id in 1...3 { h.join(UInt64(id)) }
    h.tick()
    let slow = ConnectionHandle(1)
    _ = h.take(slow)
    h.busy = [slow]
    h.join(4)
    h.tick()
    h.join(5)
    h.tick()
    #expect(h.take(slow).isEmpty)
    #expect(h.registry.nextTick(room: "r", now: h.now) != nil, "the held-back member is retried")
    h.busy = []
    h.tick()
    let frames = h.take(slow)
    #expect(frames.count == 1)
    #expect(frames.first?["joined"]?.jsonText.contains("s4") == true)
    #expect(frames.first?["joined"]?.jsonText.contains("s5") == true)
    #expect(frames.first?["count"] == .number(4))
  }

  @Test("A welcome lists those dragging first, with their drag, and at most 100 peers")
  func welcomeListsDraggersFirst() {
    let h = harness()
    storm(h, count: 150, tickEvery: 50)
    let dragger = ConnectionHandle(140)
    h.seed(ConnectionHandle(1), ids: ["p"])
    h.send(dragger, #"{"type":"drag","phase":"move","item":"p"}"#)
    let c = h.join(1_000)
    let welcome = h.frames(c, type: "welcome").first
    guard case .array(let peers)? = welcome?["peers"] else {
      Issue.record("no peers")
      return
    }
    #expect(peers.count == 100)
    #expect(peers.first?["name"] == .string("m140"))
    #expect(peers.first?["drag"]?["item"] == .string("p"))
    #expect(welcome?["peer_count"] == .number(150))
  }

  @Test("A large room slows its presence within the budget and says so: welcome and peers carry the interval")
  func largeRoomInterval() {
    // A budget of 2,000 frames/s: a room of n members flushes every n / 2,000 s (at most 100 ms).
    let h = harness(pacing: PresencePacing(minHz: 30, maxHz: 30, framesPerSecond: 2_000))
    let first = h.join(1)
    #expect(h.frames(first, type: "welcome").first?["presence_interval_ms"] == .number(33))
    // Such a room is paced by its fan-outs as well (`PresenceFanout`): each tick that flushes is
    // followed at once by the one that ends its fan-out, as the driver's next pass does, so the
    // fan-outs take no time and the budget's interval stands.
    for i in 0..<149 {
      h.join(2 + UInt64(i), name: "m\(2 + i)")
      if (i + 1) % 50 == 0 {
        h.tick()
        h.tick(advancing: 0)
      }
    }
    h.tick(advancing: Presence.countRefresh)
    h.tick(advancing: 0)
    let c = h.join(500)
    // 151 members with the newcomer: 75.5 ms.
    #expect(h.frames(c, type: "welcome").first?["presence_interval_ms"] == .number(76))
    h.now += 1
    h.tick()
    let last = peersFrames(h, first).last
    #expect(last?["presence_interval_ms"] == .number(76))
    #expect(last?["count"] == .number(150))
    let pacing = PresencePacing(minHz: 30, maxHz: 30, framesPerSecond: 40_000)
    #expect(pacing.interval(connections: 10_000, members: 10_000) == 1 / PresencePacing.largeRoomMinHz)
    #expect(pacing.interval(connections: 100, members: 100) == 1.0 / 30)
  }

  @Test("Small rooms keep the immediate peer frames and send no peers frames")
  func smallRoomsUnchanged() {
    let h = RoomsHarness()
    let a = h.join(1)
    h.join(2)
    h.close(ConnectionHandle(2))
    h.tick()
    #expect(h.frames(a, type: "peer").count == 2)
    #expect(h.frameCounts["peers"] == nil)
    #expect(h.frames(a, type: "welcome").first?["peer_count"] == .number(0))
  }
}

extension JSONValue {
  /// The elements of an array, or nil.
  var arrayValue: [JSONValue]? {
    if case .array(let elements) = self { return elements }
    return nil
  }
}
