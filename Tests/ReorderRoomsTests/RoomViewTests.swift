import Testing

@testable import ReorderRooms

/// Rooms opened as views of their snapshot (`Room+View.swift`): joins are served from the board
/// JSON stored with the snapshot, and the first frame that needs the board upgrades the room.
@Suite("Rooms opened as views of their snapshot")
struct RoomViewTests {
  /// A stored room "r" (list l: p, q, s; seq 4) whose last snapshot carries its board JSON, and a
  /// registry restarted over it; returns the board's welcome JSON and epoch before the restart.
  func storedRoom(_ storage: InMemoryRoomStore = InMemoryRoomStore()) -> (RoomsHarness, JSONValue?, String) {
    let h = RoomsHarness(storage: storage)
    let a = h.join(1)
    storage.answerPending()
    h.seed(a, ids: ["p", "q", "s"])
    storage.answerPending()
    let board = h.registry.room("r")!.boardJSON()
    let epoch = h.registry.room("r")!.epoch
    h.perform(h.registry.shutdown())
    storage.answerPending()
    h.restart()
    return (h, board, epoch)
  }

  @Test("a room whose snapshot holds its board JSON and no later op opens as a view and welcomes from it")
  func opensAsAView() throws {
    let (h, board, epoch) = storedRoom()
    let b = h.join(2)
    let room = try #require(h.registry.room("r"))
    #expect(room.isView)
    #expect(room.seq == 4)
    let welcome = try #require(h.take(b).first)
    #expect(welcome["type"] == .string("welcome"))
    #expect(welcome["seq"] == .number(4))
    #expect(welcome["epoch"] == .string(epoch))
    #expect(welcome["board"] == board)
    // A second member sees the first as a peer, as in any room.
    let c = h.join(3)
    #expect(h.take(c).first?["peer_count"] == .number(1))
    #expect(h.registry.room("r")!.isView)
  }

  @Test("a room without a snapshot is built from the first read (nothing comes before it); a view is one read too")
  func readsPerLoad() throws {
    let h = RoomsHarness()
    let a = h.join(1)
    #expect(h.storage.calls(.load) == 1)
    h.seed(a, ids: ["p"])
    h.close(a)
    h.tick(advancing: h.limits.roomIdleSeconds + 1)
    #expect(h.registry.room("r") == nil)
    // Its final snapshot has the board JSON: a view, one read.
    _ = h.join(2)
    #expect(h.registry.room("r")?.isView == true)
    #expect(h.storage.calls(.load) == 2)
  }

  @Test("a snapshot stored without its board JSON (an older store) loads the room in full")
  func snapshotWithoutBoardLoadsInFull() throws {
    let storage = InMemoryRoomStore()
    let (h, _, _) = storedRoom(storage)
    // The same history with the board JSON left out of the snapshot.
    let stored = try #require(storage.snapshot(room: "r"))
    #expect(stored.board != nil)
    storage.saveSnapshot(room: "r", seq: stored.seq, bytes: stored.bytes)
    _ = h.join(1)
    #expect(h.registry.room("r")?.isView == false)
    #expect(h.items("l") == ["p", "q", "s"])
  }

  @Test("an op on a view upgrades the room off the rooms' thread; frames wait; members stay and get the op")
  func opUpgrades() throws {
    let storage = InMemoryRoomStore(answering: .onDemand)
    let (h, _, _) = storedRoom(storage)
    let watcher = h.join(2)
    let editor = h.join(3)
    storage.answerPending()  // the view's load
    _ = h.take(watcher)
    _ = h.take(editor)
    #expect(h.registry.room("r")!.isView)
    let loadsBefore = storage.calls(.load)
    h.send(editor, #"{"type":"op","id":"e:1","op":{"kind":"move","item":"p","list":"l"}}"#)
    #expect(h.registry.isUpgrading("r"))
    #expect(storage.calls(.load) == loadsBefore + 1)
    // Everything of the room waits meanwhile: a join and a drag too.
    let late = h.open(4)
    h.send(late, #"{"type":"hello","room":"r","client":"late","name":"L","color":"red"}"#)
    h.send(watcher, #"{"type":"drag","phase":"start","item":"p","x":0.1}"#)
    #expect(h.take(editor).isEmpty)
    #expect(h.take(late).isEmpty)
    storage.answerPending()
    #expect(!h.registry.isUpgrading("r"))
    let room = try #require(h.registry.room("r"))
    #expect(!room.isView)
    #expect(room.memberCount == 3)
    #expect(h.items("l") == ["q", "s", "p"])
    let applied = h.frames(watcher, type: "applied")
    #expect(applied.map { $0["seq"] } == [.number(5)])
    #expect(h.frames(editor, type: "applied").first?["id"] == .string("e:1"))
    #expect(h.frames(editor, type: "welcome").isEmpty, "members are not welcomed again")
    let lateWelcome = try #require(h.frames(late, type: "welcome").first)
    #expect(lateWelcome["seq"] == .number(4) || lateWelcome["seq"] == .number(5))
    h.tick()
    #expect(!h.frames(editor, type: "drags").isEmpty, "the drag held for the upgrade is relayed after it")
  }

  @Test("an op id sent again after a restart is answered from the upgraded room's remembered ids")
  func resentOpAfterRestartIsIdempotent() throws {
    let h = RoomsHarness()
    let a = h.join(1, client: "c1")
    h.seed(a, ids: ["p", "q"])
    h.send(a, #"{"type":"op","id":"c1:9","op":{"kind":"move","item":"q","list":"l"}}"#)
    let seq = h.registry.room("r")!.seq
    h.perform(h.registry.shutdown())
    h.restart()
    let b = h.join(2, client: "c1", since: seq)
    #expect(h.registry.room("r")!.isView, "a join at the room's seq is served by the view")
    #expect(h.take(b).first?["ops"] == .array([]))
    h.send(b, #"{"type":"op","id":"c1:9","op":{"kind":"move","item":"q","list":"l"}}"#)
    #expect(!h.registry.room("r")!.isView)
    #expect(h.registry.room("r")!.seq == seq, "the re-sent op is not applied twice")
    #expect(h.frames(b, type: "applied").map { $0["seq"] } == [.number(Double(seq))])
  }

  @Test("a join whose since the catch-up window answers upgrades the view and gets the ops")
  func sinceInsideTheWindowUpgrades() throws {
    let (h, _, epoch) = storedRoom()
    let b = h.join(2, since: 2, epoch: epoch)
    #expect(!h.registry.room("r")!.isView)
    let welcome = try #require(h.take(b).first)
    #expect(welcome["seq"] == .number(4))
    guard case .array(let ops)? = welcome["ops"] else {
      Issue.record("no catch-up ops: \(welcome)")
      return
    }
    #expect(ops.map { $0["seq"] } == [.number(3), .number(4)])
  }

  @Test("a failed upgrade closes the room's connections (1011) and drops the room")
  func failedUpgradeDropsTheRoom() throws {
    let storage = InMemoryRoomStore(answering: .onDemand)
    let (h, _, _) = storedRoom(storage)
    let a = h.join(2)
    storage.answerPending()
    #expect(h.registry.room("r")!.isView)
    storage.fail(.load, with: .unavailable("test"))
    h.send(a, #"{"type":"op","id":"a:1","op":{"kind":"move","item":"s","list":"l"}}"#)
    storage.answerPending()
    #expect(h.closed[a]?.code == 1011)
    #expect(h.registry.room("r") == nil)
    #expect(!h.registry.isUpgrading("r"))
  }

  @Test("the API opens a view for writes by upgrading it")
  func apiUpgrades() throws {
    let storage = InMemoryRoomStore(answering: .onDemand)
    let (h, board, _) = storedRoom(storage)
    _ = h.join(2)
    storage.answerPending()
    #expect(h.registry.room("r")!.isView)
    #expect(h.registry.room("r")!.boardJSON() == board, "a view's board JSON is the stored one")
    #expect(h.registry.summary(room: "r") == nil, "a view has not counted its board")
    let (state, actions) = h.registry.openForAPI("r")
    #expect(state == .loading)
    h.perform(actions)
    storage.answerPending()
    #expect(h.registry.openForAPI("r").state == .ready)
    #expect(h.registry.summary(room: "r")?.items == 3)
  }

  @Test("a board created through the API keeps its board JSON with its snapshot, for a view on its next load")
  func apiCreatedBoardReopensAsAView() throws {
    let h = RoomsHarness()
    let content = try BoardContent(
      try JSONValue.parse(#"{"lists":[{"id":"l","title":"L","layout":"list","items":[{"id":"x"}]}]}"#))
    let (created, outcome) = try #require(h.putBoard("n", content))
    #expect(outcome == .created)
    #expect(created.snapshot.board.map { try? JSONValue.parse($0) } == created.board)
    _ = h.join(1, room: "n")
    #expect(h.registry.room("n")?.isView == true)
  }

  @Test("a view whose board is replaced while it is being upgraded takes the new board and its held ops")
  func upgradeMeetsAReplace() throws {
    let storage = InMemoryRoomStore(answering: .onDemand)
    let (h, _, epoch) = storedRoom(storage)
    let a = h.join(2)
    storage.answerPending()
    #expect(h.registry.room("r")?.isView == true)
    _ = h.take(a)
    let content = try BoardContent(
      try JSONValue.parse(#"{"lists":[{"id":"n","title":"N","layout":"list","items":[{"id":"x"},{"id":"y"}]}]}"#))
    let put = h.putBoard("r", content, replace: true)
    // A member's op makes the view upgrade; it is held until the upgraded (here: reloaded) room
    // takes it.
    h.send(a, #"{"type":"op","id":"m1","op":{"kind":"move","item":"x","list":"n","after":"y"}}"#)
    storage.answerPending()
    let board = try #require(put?.0)
    let room = try #require(h.registry.room("r"))
    #expect(!room.isView)
    #expect(room.epoch == board.epoch && room.epoch != epoch)
    let frames = h.take(a)
    #expect(frames.first?["type"] == .string("welcome"))
    #expect(frames.first?["epoch"] == .string(board.epoch))
    #expect(frames.dropFirst().map { $0["id"] } == [.string("m1")])
    #expect(h.items("n") == ["y", "x"])
  }

  @Test("a view whose upgrade reads a board still being written takes it, and the write's answer finds it current")
  func upgradeReadsABoardBeingWritten() throws {
    let storage = InMemoryRoomStore(answering: .onDemand)
    let (h, _, _) = storedRoom(storage)
    let a = h.join(2)
    storage.answerPending()
    _ = h.take(a)
    let content = try BoardContent(
      try JSONValue.parse(#"{"lists":[{"id":"n","title":"N","layout":"list","items":[{"id":"x"},{"id":"y"}]}]}"#))
    guard case .success(let board) = h.registry.buildBoard("r", content: content, now: h.now) else {
      Issue.record("not built")
      return
    }
    // The write is stored before the upgrade reads, but its answer reaches the rooms after the
    // upgrade's.
    h.registry.boardWriteBegan(room: "r")
    nonisolated(unsafe) var stored: BoardPut?
    storage.putBoard(
      room: "r", epoch: board.epoch, replace: true, entries: board.entries, snapshot: board.snapshot,
      summary: board.summary
    ) { stored = try? $0.get() }
    h.send(a, #"{"type":"op","id":"m1","op":{"kind":"move","item":"x","list":"n","after":"y"}}"#)
    storage.answerPending()
    #expect(stored == .replaced)
    #expect(h.registry.room("r")?.epoch == board.epoch)
    #expect(h.closed[a] == nil)
    // Held while the write is out: refused, retryable.
    #expect(h.frames(a, type: "rejected").map { $0["code"] } == [.string("unavailable")])
    h.perform(h.registry.boardWriteEnded(room: "r", changed: true, epoch: board.epoch, now: h.now))
    #expect(!h.registry.isReloading(room: "r"))
    h.send(a, #"{"type":"op","id":"m1","op":{"kind":"move","item":"x","list":"n","after":"y"}}"#)
    #expect(h.items("n") == ["y", "x"])
  }

  @Test("a view nobody is in is unloaded, and one being upgraded is not")
  func unloading() throws {
    let storage = InMemoryRoomStore(answering: .onDemand)
    let (h, _, _) = storedRoom(storage)
    let a = h.join(2)
    storage.answerPending()
    h.send(a, #"{"type":"op","id":"a:1","op":{"kind":"move","item":"s","list":"l"}}"#)
    h.close(a)
    h.tick(advancing: h.limits.roomIdleSeconds + 1)
    #expect(h.registry.room("r") != nil, "kept while its upgrade is out")
    storage.answerPending()
    #expect(h.registry.room("r")?.isView == false)
    h.tick(advancing: h.limits.roomIdleSeconds + 1)
    #expect(h.registry.room("r") == nil)
  }
}
