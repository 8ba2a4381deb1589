import Testing

@testable import ReorderRooms

@Suite("Room state machine")
struct RoomTests {
  @Test("hello gets a welcome with a session, the seq and the full board", arguments: BoardKind.allCases)
  func welcome(kind: BoardKind) throws {
    let h = RoomsHarness(boards: kind.factory)
    let a = h.join(1)
    let frames = h.take(a)
    #expect(frames.count == 1)
    #expect(frames[0]["type"] == .string("welcome"))
    #expect(frames[0]["seq"] == .number(0))
    #expect(frames[0]["session"]?.stringValue?.isEmpty == false)
    #expect(frames[0]["board"]?["lists"] == .array([]))
    #expect(frames[0]["peers"] == .array([]))
  }

  @Test(
    "An op is applied for everyone, sender included, only once durable, in seq order", arguments: BoardKind.allCases)
  func appliedAfterDurable(kind: BoardKind) {
    let h = RoomsHarness(boards: kind.factory, autoDurable: false)
    let a = h.join(1)
    let b = h.join(2)
    _ = h.take(a)
    _ = h.take(b)
    h.send(a, #"{"type":"op","id":"a:1","op":{"kind":"createList","list":"l","title":"L","layout":"list"}}"#)
    h.send(a, #"{"type":"op","id":"a:2","op":{"kind":"insert","list":"l","item":"x","fields":{"title":"X"}}}"#)
    #expect(h.frames(a, type: "applied").isEmpty)
    #expect(h.frames(b, type: "applied").isEmpty)
    h.makeDurable()
    for c in [a, b] {
      let applied = h.take(c).filter { $0["type"] == .string("applied") }
      #expect(applied.map { $0["seq"] } == [.number(1), .number(2)])
      #expect(applied.map { $0["id"] } == [.string("a:1"), .string("a:2")])
      #expect(applied[1]["op"]?["kind"] == .string("insert"))
      #expect(applied[1]["op"]?["index"] == .number(0))
    }
  }

  @Test("A move is resolved with its index, after and from", arguments: BoardKind.allCases)
  func resolvedMove(kind: BoardKind) {
    let h = RoomsHarness(boards: kind.factory)
    let a = h.join(1)
    h.seed(a, ids: ["p", "q", "r"])
    _ = h.take(a)
    h.send(a, #"{"type":"op","id":"m","op":{"kind":"move","item":"p","list":"l","after":"r"}}"#)
    let op = h.take(a).last?["op"]
    #expect(op?["index"] == .number(2))
    #expect(op?["after"] == .string("r"))
    #expect(op?["from"] == .object([("list", .string("l")), ("index", .number(0))]))
    #expect(h.items("l") == ["q", "r", "p"])
  }

  @Test("An op that cannot apply is rejected to the sender only and changes nothing", arguments: BoardKind.allCases)
  func rejected(kind: BoardKind) {
    let h = RoomsHarness(boards: kind.factory)
    let a = h.join(1)
    let b = h.join(2)
    h.seed(a, ids: ["p"])
    _ = h.take(a)
    _ = h.take(b)
    let seq = h.registry.room("r")!.seq
    h.send(a, #"{"type":"op","id":"bad","op":{"kind":"move","item":"nope","list":"l"}}"#)
    let frames = h.take(a)
    #expect(frames.count == 1)
    #expect(frames[0]["type"] == .string("rejected"))
    #expect(frames[0]["id"] == .string("bad"))
    #expect(frames[0]["code"] == .string("unknown_item"))
    #expect(h.take(b).isEmpty)
    #expect(h.registry.room("r")!.seq == seq)
  }

  @Test(
    "A re-sent op id is acknowledged again with the same seq, to the sender only, never applied twice",
    arguments: BoardKind.allCases)
  func idempotentResend(kind: BoardKind) {
    let h = RoomsHarness(boards: kind.factory)
    let a = h.join(1, client: "ca")
    let b = h.join(2)
    h.seed(a, ids: ["p", "q"])
    h.send(a, #"{"type":"op","id":"ca:9","op":{"kind":"move","item":"p","list":"l"}}"#)
    _ = h.take(a)
    _ = h.take(b)
    let seq = h.registry.room("r")!.seq
    h.send(a, #"{"type":"op","id":"ca:9","op":{"kind":"move","item":"p","list":"l"}}"#)
    let again = h.take(a)
    #expect(again.count == 1)
    #expect(again[0]["seq"] == .number(Double(seq)))
    #expect(h.take(b).isEmpty)
    #expect(h.registry.room("r")!.seq == seq)
  }

  @Test("Re-sent op ids stay idempotent after a restart on the same storage", arguments: BoardKind.allCases)
  func idempotentAcrossRestart(kind: BoardKind) {
    let h = RoomsHarness(boards: kind.factory)
    let a = h.join(1, client: "ca")
    h.seed(a, ids: ["p", "q"])
    h.send(a, #"{"type":"op","id":"ca:9","op":{"kind":"move","item":"p","list":"l"}}"#)
    let seq = h.registry.room("r")!.seq
    h.restart()
    let a2 = h.join(3, client: "ca")
    _ = h.take(a2)
    h.send(a2, #"{"type":"op","id":"ca:9","op":{"kind":"move","item":"p","list":"l"}}"#)
    #expect(h.take(a2).map { $0["seq"] } == [.number(Double(seq))])
    #expect(h.registry.room("r")!.seq == seq)
    #expect(h.items("l") == ["q", "p"])
  }

  @Test("hello with a recent since gets exactly the missed applied frames", arguments: BoardKind.allCases)
  func sinceCatchUp(kind: BoardKind) {
    let h = RoomsHarness(boards: kind.factory)
    let a = h.join(1)
    h.seed(a, ids: ["p", "q", "r"])  // seqs 1...4
    h.send(a, #"{"type":"op","id":"m1","op":{"kind":"move","item":"r","list":"l"}}"#)
    let b = h.join(2, since: 2)
    let welcome = h.take(b)[0]
    #expect(welcome["seq"] == .number(5))
    #expect(welcome["board"] == nil)
    guard case .array(let ops)? = welcome["ops"] else {
      Issue.record("no ops in the catch-up welcome")
      return
    }
    #expect(ops.map { $0["seq"] } == [.number(3), .number(4), .number(5)])
    #expect(ops.allSatisfy { $0["type"] == .string("applied") })
  }

  @Test("since too old or ahead of the room gets the full board", arguments: BoardKind.allCases)
  func sinceFallsBackToBoard(kind: BoardKind) {
    var limits = RoomLimits()
    limits.maxCatchUpOps = 2
    let h = RoomsHarness(limits: limits, boards: kind.factory)
    let a = h.join(1)
    h.seed(a, ids: ["p", "q", "r"])
    #expect(h.take(h.join(2, since: 0))[0]["board"] != nil)
    #expect(h.take(h.join(3, since: 99))[0]["board"] != nil)
    #expect(h.take(h.join(4, since: 3))[0]["ops"] != nil)
  }

  @Test("since catch-up reads from storage after a restart", arguments: BoardKind.allCases)
  func sinceAfterRestart(kind: BoardKind) {
    let h = RoomsHarness(boards: kind.factory)
    let a = h.join(1)
    h.seed(a, ids: ["p", "q"])
    h.restart()
    let b = h.join(2, since: 1)
    guard case .array(let ops)? = h.take(b)[0]["ops"] else {
      Issue.record("no ops")
      return
    }
    #expect(ops.map { $0["id"] } == [.string("seed-p"), .string("seed-q")])
  }

  @Test(
    "A member joining while ops are pending gets its welcome once they are durable, then only later ops",
    arguments: BoardKind.allCases)
  func welcomeWaitsForDurability(kind: BoardKind) {
    let h = RoomsHarness(boards: kind.factory, autoDurable: false)
    let a = h.join(1)
    h.send(a, #"{"type":"op","id":"1","op":{"kind":"createList","list":"l","title":"L","layout":"list"}}"#)
    let b = h.join(2)
    #expect(h.take(b).isEmpty)
    h.send(a, #"{"type":"op","id":"2","op":{"kind":"insert","list":"l","item":"x","fields":{}}}"#)
    h.makeDurable()
    let frames = h.take(b)
    #expect(frames.map { $0["type"] } == [.string("welcome"), .string("applied")])
    #expect(frames[0]["seq"] == .number(1))
    #expect(frames[1]["seq"] == .number(2))
    guard case .array(let lists)? = frames[0]["board"]?["lists"] else {
      Issue.record("no board")
      return
    }
    #expect(lists.count == 1)
    #expect(lists[0]["items"] == .array([]))
  }

  @Test("A restart restores the board from snapshot plus the ops after it", arguments: BoardKind.allCases)
  func restoreFromSnapshotAndLog(kind: BoardKind) {
    var limits = RoomLimits()
    limits.snapshotEvery = 3
    let h = RoomsHarness(limits: limits, boards: kind.factory)
    let a = h.join(1)
    h.seed(a, ids: ["p", "q", "r", "s"])
    h.send(a, #"{"type":"op","id":"m","op":{"kind":"move","item":"s","list":"l","before":"p"}}"#)
    #expect(h.snapshots.map(\.seq) == [3, 6])
    let before = h.registry.room("r")!.boardJSON()
    h.restart()
    _ = h.join(2)
    #expect(h.registry.room("r")!.boardJSON() == before)
    #expect(h.registry.room("r")!.seq == 6)
  }

  @Test("A large board snapshots every (snapshot bytes / 100) ops, not every --snapshot-every, and reloads")
  func largeBoardsSnapshotLessOften() {
    var limits = RoomLimits()
    limits.snapshotEvery = 3
    let h = RoomsHarness(limits: limits)
    let a = h.join(1)
    let title = String(repeating: "t", count: 300)
    h.send(a, #"{"type":"op","id":"c","op":{"kind":"createList","list":"l","title":"L","layout":"list"}}"#)
    for i in 0..<40 {
      let fields = #"{"title":"\#(title)"}"#
      h.send(a, #"{"type":"op","id":"i\#(i)","op":{"kind":"insert","list":"l","item":"x\#(i)","fields":\#(fields)}}"#)
    }
    let seqs = h.snapshots.map { Int($0.seq) }
    #expect(seqs.count >= 3)
    #expect(seqs.first == 3)
    for k in 1..<seqs.count {
      let expected = max(3, h.snapshotSizes[k - 1] / RoomLimits.snapshotBytesPerOp)
      #expect(seqs[k] - seqs[k - 1] == expected)
    }
    #expect(seqs.last! - seqs[seqs.count - 2] > 3, "the board grew past 300 bytes of snapshot")
    let before = h.registry.room("r")!.boardJSON()
    h.restart()
    _ = h.join(2)
    #expect(h.registry.room("r")!.boardJSON() == before)
  }

  @Test("peer join and leave are announced to the others", arguments: BoardKind.allCases)
  func peers(kind: BoardKind) {
    let h = RoomsHarness(boards: kind.factory)
    let a = h.join(1, name: "Ann")
    _ = h.take(a)
    let b = h.join(2, name: "Bob")
    #expect(h.take(a).map { $0["event"] } == [.string("join")])
    #expect(h.take(b)[0]["peers"]?.jsonText.contains("Ann") == true)
    h.close(b)
    let leave = h.take(a)
    #expect(leave.map { $0["event"] } == [.string("leave")])
    #expect(leave[0]["name"] == .string("Bob"))
  }

  @Test("An idle room is unloaded after roomIdleSeconds with a final snapshot", arguments: BoardKind.allCases)
  func idleUnload(kind: BoardKind) {
    var limits = RoomLimits()
    limits.roomIdleSeconds = 30
    let h = RoomsHarness(limits: limits, boards: kind.factory)
    let a = h.join(1)
    h.seed(a, ids: ["p"])
    h.close(a)
    h.now += 10
    h.tick()
    #expect(h.registry.roomCount == 1)
    h.now += 25
    h.tick()
    #expect(h.registry.roomCount == 0)
    #expect(h.snapshots.last?.seq == 2)
  }

  @Test("Demo rooms are created once with the seed contents", arguments: BoardKind.allCases)
  func demoRooms(kind: BoardKind) throws {
    let h = RoomsHarness(boards: kind.factory)
    func putDemoBoards() throws -> [BoardPut?] {
      try h.registry.buildDemoBoards(now: h.now).map { room, board in
        nonisolated(unsafe) var outcome: BoardPut?
        h.storage.putBoard(
          room: room, epoch: board.epoch, replace: false, entries: board.entries, snapshot: board.snapshot,
          summary: board.summary
        ) { outcome = try? $0.get() }
        return outcome
      }
    }
    #expect(try putDemoBoards().allSatisfy { $0 == .created })
    for (i, room) in ["food", "home", "numbers", "cities"].enumerated() { _ = h.join(UInt64(100 + i), room: room) }
    #expect(h.items("foods", room: "food") == ["pizza", "pasta", "burger", "sizzler"])
    #expect(h.items("people", room: "food") == ["john", "daizy", "tom"])
    #expect(h.items("apps", room: "home").count == 24)
    #expect(h.items("numbers", room: "numbers").count == 100)
    #expect(h.items("cities", room: "cities").count == 12)
    h.restart()
    #expect(try putDemoBoards().allSatisfy { $0 == .exists })
    #expect(h.registry.roomCount == 0)
    let c = h.join(1, room: "food")
    #expect(h.take(c)[0]["board"]?["totals"]?["john"] == .object([("count", .number(0)), ("sum", .number(0))]))
    h.send(c, #"{"type":"op","id":"x","op":{"kind":"assign","item":"pizza","target":"john"}}"#)
    #expect(h.take(c)[0]["op"]?["totals"] == .object([("count", .number(1)), ("sum", .number(20))]))
  }
}

@Suite("Room epochs")
struct EpochTests {
  @Test("The epoch survives a restart; a since from another history gets the full board")
  func epochGuardsCatchUp() {
    let h = RoomsHarness()
    let a = h.join(1)
    let epoch = h.take(a)[0]["epoch"]?.stringValue ?? ""
    #expect(epoch.count == 16)
    h.seed(a, ids: ["p", "q"])
    h.restart()
    let b = h.open(2)
    h.send(b, #"{"type":"hello","room":"r","client":"b","name":"B","color":"red","since":1,"epoch":"\#(epoch)"}"#)
    let same = h.take(b)[0]
    #expect(same["epoch"] == .string(epoch))
    #expect(same["ops"] != nil)
    let c = h.open(3)
    h.send(
      c, #"{"type":"hello","room":"r","client":"c","name":"C","color":"red","since":1,"epoch":"0123456789abcdef"}"#)
    let other = h.take(c)[0]
    #expect(other["ops"] == nil)
    #expect(other["board"] != nil)
  }

  @Test("A room recreated on fresh storage has a new epoch")
  func freshStorageNewEpoch() {
    let first = RoomsHarness()
    let a = first.join(1)
    first.seed(a, ids: ["p"])
    let second = RoomsHarness()
    let b = second.join(1)
    second.seed(b, ids: ["p"])
    #expect(first.registry.room("r")?.epoch != second.registry.room("r")?.epoch)
  }
}
