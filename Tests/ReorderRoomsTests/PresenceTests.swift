import Testing

@testable import ReorderRooms

@Suite("Presence coalescing")
struct PresenceTests {
  func dragFrames(_ h: RoomsHarness, _ c: ConnectionHandle) -> [(updates: [JSONValue], priority: FramePriority)] {
    let frames = h.inbox[c] ?? []
    let priorities = h.priorities[c] ?? []
    return zip(frames, priorities).compactMap { frame, priority in
      guard frame["type"] == .string("drags"), case .array(let updates)? = frame["updates"] else { return nil }
      return (updates, priority)
    }
  }

  @Test("Drags are coalesced per session: one frame per tick with the latest state, not sent back to the dragger")
  func latestWinsPerTick() {
    let h = RoomsHarness()
    let a = h.join(1)
    let b = h.join(2)
    h.seed(a, ids: ["p", "q"])
    _ = h.take(a)
    _ = h.take(b)
    h.send(a, #"{"type":"drag","phase":"start","item":"p","x":0.1}"#)
    h.send(a, #"{"type":"drag","phase":"move","item":"p","x":0.2}"#)
    h.send(a, #"{"type":"drag","phase":"move","item":"p","x":0.3}"#)
    #expect(dragFrames(h, b).isEmpty)
    h.tick()
    let frames = dragFrames(h, b)
    #expect(frames.count == 1)
    #expect(frames.first?.updates.count == 1)
    #expect(frames.first?.updates.first?["x"] == .number(0.3))
    #expect(frames.first?.priority == .presence)
    #expect(dragFrames(h, a).isEmpty)
    _ = h.take(b)
    h.tick()
    #expect(dragFrames(h, b).isEmpty)
  }

  @Test("Several draggers share one frame; each sees only the others")
  func batchedOthers() {
    let h = RoomsHarness()
    let a = h.join(1)
    let b = h.join(2)
    let c = h.join(3)
    h.seed(a, ids: ["p", "q"])
    for x in [a, b, c] { _ = h.take(x) }
    h.send(a, #"{"type":"drag","phase":"move","item":"p"}"#)
    h.send(b, #"{"type":"drag","phase":"move","item":"q"}"#)
    h.tick()
    #expect(dragFrames(h, c).first?.updates.count == 2)
    #expect(dragFrames(h, a).first?.updates.map { $0["item"] } == [.string("q")])
    #expect(dragFrames(h, b).first?.updates.map { $0["item"] } == [.string("p")])
  }

  @Test("Leaving mid-drag cancels the drag for everyone, with data priority")
  func cancelOnLeave() {
    let h = RoomsHarness()
    let a = h.join(1)
    let b = h.join(2)
    h.seed(a, ids: ["p"])
    h.send(a, #"{"type":"drag","phase":"start","item":"p"}"#)
    h.tick()
    _ = h.take(b)
    h.close(a)
    h.tick()
    let frames = dragFrames(h, b)
    #expect(frames.first?.updates.first?["phase"] == .string("cancel"))
    #expect(frames.first?.priority == .data)
  }

  @Test("A newcomer's welcome lists the drags in progress; finished drags are forgotten")
  func welcomeShowsDrags() {
    let h = RoomsHarness()
    let a = h.join(1, name: "Ann")
    h.seed(a, ids: ["p"])
    h.send(a, #"{"type":"drag","phase":"move","item":"p","over":"p"}"#)
    let b = h.join(2)
    guard case .array(let peers)? = h.take(b).first?["peers"] else {
      Issue.record("no peers")
      return
    }
    #expect(peers.first?["drag"]?["item"] == .string("p"))
    h.send(a, #"{"type":"drag","phase":"end","item":"p"}"#)
    let c = h.join(3)
    guard case .array(let later)? = h.take(c).first?["peers"] else { return }
    #expect(later.allSatisfy { $0["drag"] == nil })
  }
}

@Suite("Limits")
struct LimitTests {
  @Test("A token bucket allows its burst, then its rate")
  func tokenBucket() {
    var bucket = TokenBucket(rate: 10, burst: 20, now: 0)
    #expect((0..<25).filter { _ in bucket.take(now: 0) }.count == 20)
    let early = bucket.take(now: 0.05)
    #expect(!early)
    let refilled = bucket.take(now: 0.1)
    #expect(refilled)
    #expect((0..<50).filter { _ in bucket.take(now: 10) }.count == 20)
  }

  @Test("Ops over the rate are rejected rate_limited; sustained abuse closes with 1008")
  func opRateLimit() {
    var limits = RoomLimits()
    limits.maxOpsPerSecond = 5
    let h = RoomsHarness(limits: limits)
    let a = h.join(1)
    _ = h.take(a)
    for i in 0..<12 {
      h.send(a, #"{"type":"op","id":"o\#(i)","op":{"kind":"createList","title":"T","layout":"list"}}"#)
    }
    let frames = h.take(a)
    #expect(frames.filter { $0["type"] == .string("applied") }.count == 10)
    #expect(frames.filter { $0["code"] == .string("rate_limited") }.count == 2)
    #expect(h.closed[a] == nil)
    for i in 0..<40 { h.send(a, #"{"type":"op","id":"p\#(i)","op":{"kind":"delete","item":"x"}}"#) }
    #expect(h.closed[a]?.code == 1008)
    h.closed[a] = nil
    _ = h.take(a)
    h.now += 1
    h.send(a, #"{"type":"op","id":"late","op":{"kind":"delete","item":"x"}}"#)
    #expect(h.take(a).isEmpty)
  }

  @Test("A full room refuses the next hello with room_full and 1013")
  func roomFull() {
    var limits = RoomLimits()
    limits.maxConnectionsPerRoom = 1
    let h = RoomsHarness(limits: limits)
    _ = h.join(1)
    let b = h.join(2)
    #expect(h.take(b).first?["code"] == .string("room_full"))
    #expect(h.closed[b]?.code == 1013)
  }

  @Test("A full server refuses a new room with server_full and 1013")
  func serverFull() {
    var limits = RoomLimits()
    limits.maxRooms = 1
    let h = RoomsHarness(limits: limits)
    _ = h.join(1, room: "a")
    let b = h.open(2, room: "b")
    #expect(h.take(b).first?["code"] == .string("server_full"))
    #expect(h.closed[b]?.code == 1013)
  }

  @Test("Item and list limits reject with item_limit and list_limit", arguments: BoardKind.allCases)
  func itemAndListLimits(kind: BoardKind) {
    var limits = RoomLimits()
    limits.maxItemsPerRoom = 2
    limits.maxListsPerRoom = 1
    let h = RoomsHarness(limits: limits, boards: kind.factory)
    let a = h.join(1)
    h.seed(a, ids: ["p", "q"])
    _ = h.take(a)
    h.send(a, #"{"type":"op","id":"x","op":{"kind":"insert","list":"l","fields":{}}}"#)
    h.send(a, #"{"type":"op","id":"y","op":{"kind":"createList","title":"T","layout":"grid"}}"#)
    #expect(h.take(a).map { $0["code"] } == [.string("item_limit"), .string("list_limit")])
  }

  @Test("Binary frames are refused with bad_message")
  func binaryFrames() {
    let h = RoomsHarness()
    let a = h.join(1)
    _ = h.take(a)
    h.perform(h.registry.received(a, message: [1, 2, 3], isBinary: true, now: h.now))
    #expect(h.take(a).first?["code"] == .string("bad_message"))
  }

  @Test("A room with an open but silent connection is not unloaded; hello after a reload still joins")
  func attachedRoomsStayLoaded() {
    var limits = RoomLimits()
    limits.roomIdleSeconds = 1
    let h = RoomsHarness(limits: limits)
    let a = h.open(1)
    h.now += 5  // within the hello timeout
    h.tick()
    #expect(h.registry.roomCount == 1)
    h.send(a, #"{"type":"hello","room":"r","client":"c","name":"N","color":"red"}"#)
    #expect(h.take(a).first?["type"] == .string("welcome"))
  }
}

@Suite("Storage failures")
struct StorageFailureTests {
  @Test(
    "A room whose stored data cannot be read is refused with room_unavailable and 1011", arguments: BoardKind.allCases)
  func corruptSnapshot(kind: BoardKind) {
    let storage = InMemoryRoomStore()
    storage.saveSnapshot(room: "r", seq: 3, bytes: [1, 2, 3])
    let h = RoomsHarness(boards: kind.factory, storage: storage)
    let a = h.open(1)
    #expect(h.take(a).first?["code"] == .string("room_unavailable"))
    #expect(h.closed[a]?.code == 1011)
    #expect(h.registry.roomCount == 0)
  }

  @Test("A gap in the op log is refused rather than loaded wrong")
  func logGap() {
    let storage = InMemoryRoomStore()
    let record = OpRecord(id: "x", client: "c", by: "s", resolved: .object([]), logged: [])
    storage.append(room: "r", entries: [LogEntry(seq: 2, payload: record.encoded())])
    let h = RoomsHarness(storage: storage)
    let a = h.open(1)
    #expect(h.closed[a]?.code == 1011)
  }

  @Test("When appends fail, the room's connections are closed with 1011 and the room is dropped (to reload from disk)")
  func appendFailure() {
    let h = RoomsHarness(autoDurable: false)
    let a = h.join(1)
    h.send(a, #"{"type":"op","id":"1","op":{"kind":"createList","list":"l","title":"L","layout":"list"}}"#)
    h.perform(h.registry.fail(room: "r", reason: "storage failure"))
    #expect(h.closed[a]?.code == 1011)
    #expect(h.registry.roomCount == 0)
  }
}

@Suite("Presence for busy connections")
struct BusyPresenceTests {
  func drags(_ h: RoomsHarness, _ c: ConnectionHandle) -> [[JSONValue]] {
    h.take(c).compactMap { frame in
      guard frame["type"] == .string("drags"), case .array(let updates)? = frame["updates"] else { return nil }
      return updates
    }
  }

  @Test("A busy connection gets no drags frame; when it drains it gets one frame with the latest of each session")
  func heldBackLatestWins() {
    let h = RoomsHarness()
    let a = h.join(1)
    let b = h.join(2)
    let slow = h.join(3)
    h.seed(a, ids: ["p", "q"])
    for c in [a, b, slow] { _ = h.take(c) }
    h.busy = [slow]
    for x in [0.1, 0.2, 0.3] {
      h.send(a, #"{"type":"drag","phase":"move","item":"p","x":\#(x)}"#)
      h.tick()
    }
    h.send(b, #"{"type":"drag","phase":"start","item":"q"}"#)
    h.tick()
    #expect(drags(h, slow).isEmpty)
    #expect(drags(h, b).count == 3)
    h.busy = []
    h.tick()
    let frames = drags(h, slow)
    #expect(frames.count == 1)
    #expect(frames.first?.map { $0["x"] } == [.number(0.3), .null])
    #expect(frames.first?.map { $0["item"] } == [.string("p"), .string("q")])
    h.tick()
    #expect(drags(h, slow).isEmpty)
  }

  @Test("A cancel held back for a busy connection is not lost")
  func cancelNotLost() {
    let h = RoomsHarness()
    let a = h.join(1)
    let slow = h.join(2)
    h.seed(a, ids: ["p"])
    _ = h.take(slow)
    h.busy = [slow]
    h.send(a, #"{"type":"drag","phase":"start","item":"p"}"#)
    h.tick()
    h.close(a)
    h.tick()
    h.busy = []
    h.tick()
    let frames = drags(h, slow)
    #expect(frames.count == 1)
    #expect(frames.first?.first?["phase"] == .string("cancel"))
  }
}
