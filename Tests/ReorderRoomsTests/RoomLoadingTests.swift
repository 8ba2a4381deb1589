import ReorderBasics
import Testing

@testable import ReorderRooms

@Suite("Loading rooms through the port")
struct RoomLoadingTests {
  let hello = #"{"type":"hello","room":"r","client":"c1","name":"Ann","color":"red"}"#
  let createList = #"{"type":"op","id":"c1:1","op":{"kind":"createList","list":"l","title":"L","layout":"list"}}"#

  @Test("Opening a room not in memory asks for one load; nothing is answered until it arrives")
  func openAsksForLoad() {
    let h = RoomsHarness(storage: InMemoryRoomStore(answering: .onDemand))
    let a = h.open(1)
    #expect(h.loads == ["r"])
    #expect(h.registry.isLoading("r"))
    #expect(h.registry.roomCount == 0)
    h.send(a, hello)
    #expect(h.take(a).isEmpty)
    h.storage.answerPending()
    #expect(!h.registry.isLoading("r"))
    #expect(h.registry.roomCount == 1)
    #expect(h.take(a).map { $0["type"] } == [.string("welcome")])
  }

  @Test("hello and ops sent while the room loads are handled in order once it has loaded")
  func framesWaitInOrder() {
    let h = RoomsHarness(storage: InMemoryRoomStore(answering: .onDemand))
    let a = h.open(1)
    h.send(a, hello)
    h.send(a, createList)
    h.send(a, #"{"type":"op","id":"c1:2","op":{"kind":"insert","list":"l","item":"x","fields":{}}}"#)
    #expect(h.inbox[a] == nil)
    h.storage.answerPending()
    let frames = h.take(a)
    #expect(frames.map { $0["type"] } == [.string("welcome"), .string("applied"), .string("applied")])
    #expect(frames.dropFirst().map { $0["seq"] } == [.number(1), .number(2)])
  }

  @Test("Joins arriving while the room loads share one load, and each sees the ones before it")
  func joinsWhileLoading() {
    let h = RoomsHarness(storage: InMemoryRoomStore(answering: .onDemand))
    let a = h.open(1)
    let b = h.open(2)
    h.send(b, #"{"type":"hello","room":"r","client":"c2","name":"Bob","color":"red"}"#)
    h.send(a, hello)
    let c = h.open(3)
    h.send(c, #"{"type":"hello","room":"r","client":"c3","name":"Cy","color":"red"}"#)
    #expect(h.storage.calls(.load) == 1)
    h.storage.answerPending()
    // Connections in open order: a joins first, then b, then c.
    #expect(h.take(a).map { $0["type"] } == [.string("welcome"), .string("peer"), .string("peer")])
    let welcomeC = h.take(c)[0]
    guard case .array(let peers)? = welcomeC["peers"] else {
      Issue.record("no peers")
      return
    }
    #expect(peers.map { $0["name"] } == [.string("Ann"), .string("Bob")])
    #expect(h.registry.room("r")?.memberCount == 3)
  }

  @Test("A stored room loads on demand with its board, seq and epoch")
  func storedRoomLoadsLater() {
    let storage = InMemoryRoomStore(answering: .onDemand)
    let h = RoomsHarness(storage: storage)
    let a = h.open(1)
    h.storage.answerPending()
    h.send(a, hello)
    h.seed(a, ids: ["p", "q"])
    h.storage.answerPending()
    let epoch = h.registry.room("r")!.epoch
    h.restart()
    let b = h.open(2)
    h.send(b, #"{"type":"hello","room":"r","client":"c2","name":"B","color":"red","since":1,"epoch":"\#(epoch)"}"#)
    #expect(h.take(b).isEmpty)
    h.storage.answerPending()
    let welcome = h.take(b)[0]
    #expect(welcome["seq"] == .number(3))
    #expect(welcome["epoch"] == .string(epoch))
    guard case .array(let ops)? = welcome["ops"] else {
      Issue.record("no catch-up ops")
      return
    }
    #expect(ops.map { $0["id"] } == [.string("seed-p"), .string("seed-q")])
    #expect(h.items("l") == ["p", "q"])
  }

  /// A room whose list `l` Ann (`c1`) seeded with `ids`, under limits `adjust` sets.
  static func seededByAnn(ids: [String], _ adjust: (inout RoomLimits) -> Void) -> (RoomsHarness, ConnectionHandle) {
    var limits = RoomLimits()
    adjust(&limits)
    let h = RoomsHarness(limits: limits)
    let a = h.join(1, client: "c1", name: "Ann")
    h.seed(a, ids: ids)
    return (h, a)
  }

  @Test("After a restart a member's history names who made each op, before the room's snapshot and after it")
  func historyAfterRestart() throws {
    let (h, _) = Self.seededByAnn(ids: ["p", "q", "r", "s"]) { $0.snapshotEvery = 3 }  // ops 1-5
    #expect(h.snapshots.map(\.seq).contains(3))
    h.restart()
    let b = h.join(2, client: "c2", name: "Bob")
    #expect(h.registry.room("r")?.seq == 5)
    h.send(b, #"{"type":"history","limit":10}"#)
    let page = try #require(h.frames(b, type: "history").first)
    guard case .array(let entries)? = page["entries"] else {
      Issue.record("no entries: \(page)")
      return
    }
    #expect(entries.compactMap { $0["seq"]?.numberValue } == [5, 4, 3, 2, 1])
    for entry in entries {
      #expect(entry["actor"]?["name"] == .string("Ann"), "\(entry)")
      #expect(entry["at"]?.stringValue != nil, "\(entry)")
    }
  }

  @Test("One node: a member's history comes from the room's window (storage unreadable), durable ops only")
  func historyFromTheWindow() throws {
    let h = RoomsHarness(autoDurable: false)
    let a = h.join(1, client: "c1", name: "Ann")
    h.makeDurable()
    h.seed(a, ids: ["p", "q"])  // ops 1-3
    h.makeDurable()
    h.send(a, #"{"type":"op","id":"m1","op":{"kind":"move","item":"p","list":"l","after":"q"}}"#)  // op 4, not durable
    #expect(h.registry.room("r")?.seq == 4)
    h.storage.fail(.entries, with: .unavailable("test"))
    _ = h.take(a)
    h.send(a, #"{"type":"history","limit":10}"#)
    let page = try #require(h.frames(a, type: "history").first)
    guard case .array(let entries)? = page["entries"] else {
      Issue.record("no entries: \(page)")
      return
    }
    #expect(entries.compactMap { $0["seq"]?.numberValue } == [3, 2, 1], "op 4 is not durable yet")
    #expect(entries.allSatisfy { $0["actor"]?["name"] == .string("Ann") })
    h.storage.fail(.entries, with: nil)
    h.makeDurable()
    let answer = Locked<Result<HistoryPage, RoomStoreError>?>(nil)
    HistoryPage.read(room: "r", before: nil, limit: 10, on: h.storage) { result in answer.withLock { $0 = result } }
    let stored = try #require(answer.withLock { $0 }).get()
    #expect(
      h.registry.loggedHistory(room: "r", before: nil, limit: 10) == .page(stored), "the window's page is the store's")
  }

  @Test("The window's history reaches back as far as the window keeps, not over the frames it holds beyond")
  func historyWithinTheKeptWindow() throws {
    // Ops 1-40, every frame still held.
    let (h, _) = Self.seededByAnn(ids: (1...39).map { "i\($0)" }) { $0.maxCatchUpOps = 5 }
    #expect(h.registry.room("r")?.seq == 40)
    #expect(h.registry.loggedHistory(room: "r", before: 30, limit: 10) == .page(.gone(earliest: 36)))
    guard case .page(.entries(let entries, let next))? = h.registry.loggedHistory(room: "r", before: nil, limit: 10)
    else {
      Issue.record("no page")
      return
    }
    #expect(entries.map(\.seq) == [40, 39, 38, 37, 36])
    #expect(next == 36, "older pages are read from storage")
  }

  @Test(
    "A failed load closes every waiting connection with 1011 storage failure, is logged, and the next open retries",
    arguments: [InMemoryRoomStore.Answering.immediately, .onDemand])
  func failedLoad(answering: InMemoryRoomStore.Answering) {
    let h = RoomsHarness(storage: InMemoryRoomStore(answering: answering))
    h.storage.fail(.load, with: .unavailable("the disk went away"))
    let a = h.open(1)
    let b = h.open(2)
    h.send(a, hello)
    h.storage.answerPending()
    for c in [a, b] {
      #expect(h.closed[c]?.code == 1011)
      #expect(h.closed[c]?.reason == "storage failure: unavailable")
      #expect(h.take(c).first?["code"] == .string("room_unavailable"))
    }
    #expect(h.logs.contains { $0.level == .error && $0.event == "room load failed" })
    #expect(h.registry.roomCount == 0)
    #expect(!h.registry.isLoading("r"))
    h.storage.fail(.load, with: nil)
    let c = h.join(3)
    h.storage.answerPending()
    #expect(h.take(c).first?["type"] == .string("welcome"))
    #expect(h.storage.calls(.load) >= 2)
  }

  @Test("A connection that closes while its room loads is forgotten; the room is unloaded once idle")
  func closedWhileLoading() {
    var limits = RoomLimits()
    limits.roomIdleSeconds = 1
    let h = RoomsHarness(limits: limits, storage: InMemoryRoomStore(answering: .onDemand))
    let a = h.open(1)
    h.send(a, hello)
    h.close(a)
    h.storage.answerPending()
    #expect(h.inbox[a] == nil)
    #expect(h.registry.roomCount == 1)
    h.now += 2
    h.tick()
    #expect(h.registry.roomCount == 0)
  }

  @Test("Rooms being loaded count towards --max-rooms")
  func loadingCountsTowardsMaxRooms() {
    var limits = RoomLimits()
    limits.maxRooms = 1
    let h = RoomsHarness(limits: limits, storage: InMemoryRoomStore(answering: .onDemand))
    _ = h.open(1, room: "a")
    let b = h.open(2, room: "b")
    #expect(h.closed[b]?.code == 1013)
    #expect(h.take(b).first?["code"] == .string("server_full"))
  }

  @Test("A connection that floods a loading room is closed with 1008")
  func floodWhileLoading() {
    let h = RoomsHarness(storage: InMemoryRoomStore(answering: .onDemand))
    let a = h.open(1)
    for _ in 0...RoomRegistry.maxHeldFrames { h.send(a, hello) }
    #expect(h.closed[a]?.code == 1008)
  }

  /// A room whose op `ca:old` (seq 2) is older than the catch-up window after a restart.
  func roomWithOldOp(answering: InMemoryRoomStore.Answering) -> (RoomsHarness, ConnectionHandle) {
    var limits = RoomLimits()
    limits.maxCatchUpOps = 1
    limits.maxOpsPerSecond = 100_000
    limits.snapshotEvery = 100_000
    let h = RoomsHarness(limits: limits)
    let a = h.join(1, client: "ca")
    h.seed(a, ids: ["p"])
    h.send(a, #"{"type":"op","id":"ca:old","op":{"kind":"set","item":"p","field":"n","value":0}}"#)
    for i in 1...1_100 {
      h.send(a, #"{"type":"op","id":"ca:\#(i)","op":{"kind":"set","item":"p","field":"n","value":\#(i)}}"#)
    }
    _ = h.take(a)
    #expect(h.registry.room("r")!.appliedFrame(seq: 3) == nil, "seq 3 has left the in-memory window")
    return (h, a)
  }

  @Test("A re-sent op id older than the in-memory window is acknowledged from storage through a read")
  func oldResendReadsStorage() {
    let (h, a) = roomWithOldOp(answering: .immediately)
    h.send(a, #"{"type":"op","id":"ca:old","op":{"kind":"set","item":"p","field":"n","value":0}}"#)
    #expect(h.storage.calls(.entries) == 1)
    let frames = h.take(a)
    #expect(frames.map { $0["seq"] } == [.number(3)])
    #expect(frames.first?["id"] == .string("ca:old"))
  }

  @Test("A read the storage cannot serve now refuses the op unavailable (retryable); a broken one closes 1011")
  func failedRead() {
    let (h, a) = roomWithOldOp(answering: .immediately)
    h.storage.fail(.entries, with: .unavailable("gone"))
    h.send(a, #"{"type":"op","id":"ca:old","op":{"kind":"set","item":"p","field":"n","value":0}}"#)
    #expect(h.closed[a] == nil)
    let frames = h.take(a)
    #expect(frames.map { $0["type"] } == [.string("rejected")])
    #expect(frames.first?["id"] == .string("ca:old") && frames.first?["code"] == .string("unavailable"))
    h.storage.fail(.entries, with: .corrupt("bad"))
    h.send(a, #"{"type":"op","id":"ca:old","op":{"kind":"set","item":"p","field":"n","value":0}}"#)
    #expect(h.closed[a]?.code == 1011)
  }
}
