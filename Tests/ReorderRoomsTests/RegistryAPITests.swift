import ReorderBasics
import Testing

@testable import ReorderRooms

@Suite("Registry: the HTTP API's board writes")
struct RegistryAPITests {
  /// Item ids of `list` in a `welcome.board`.
  static func boardItems(_ board: JSONValue?, list: String) -> [String] {
    guard case .array(let lists)? = board?["lists"] else { return [] }
    for l in lists where l["id"] == .string(list) {
      guard case .array(let items)? = l["items"] else { return [] }
      return items.compactMap { $0["id"]?.stringValue }
    }
    return []
  }

  static func content(_ json: String) throws -> BoardContent { try BoardContent(try JSONValue.parse(json)) }

  static let twoItems = #"{"lists":[{"id":"new","title":"New","layout":"grid","items":[{"id":"x"},{"id":"y"}]}]}"#

  @Test("A board put over one with ops is refused as existing, or replaces it: its members are welcomed again")
  func replaceWelcomesAgain() throws {
    let h = RoomsHarness()
    let a = h.join(1)
    h.seed(a, ids: ["p", "q"])
    let oldEpoch = try #require(h.registry.room("r")?.epoch)
    _ = h.take(a)
    let content = try Self.content(Self.twoItems)
    #expect(h.putBoard("r", content)?.1 == .exists)
    #expect(h.take(a).isEmpty)
    #expect(h.registry.room("r")?.epoch == oldEpoch)
    let (board, outcome) = try #require(h.putBoard("r", content, replace: true))
    #expect(outcome == .replaced)
    #expect(board.seq == 3)
    #expect(board.epoch != oldEpoch)
    #expect(board.entries.map(\.seq) == [1, 2, 3])
    // The room reloaded the stored board: its member is welcomed again.
    let frames = h.take(a)
    #expect(frames.first?["type"] == .string("welcome"))
    #expect(frames.first?["epoch"] == .string(board.epoch))
    #expect(frames.first?["seq"] == .number(3))
    #expect(Self.boardItems(frames.first?["board"], list: "new") == ["x", "y"])
    h.send(a, #"{"type":"op","id":"n1","op":{"kind":"move","item":"x","list":"new","after":"y"}}"#)
    #expect(h.take(a).map { $0["seq"] } == [.number(4)])
    #expect(h.items("new") == ["y", "x"])
  }

  @Test("While a board write is out the room makes no op, loaded before or during it; after it, ops go on")
  func opsWaitForBoardWrites() throws {
    let h = RoomsHarness()
    let a = h.join(1)
    h.seed(a, ids: ["p"])
    _ = h.take(a)
    h.registry.boardWriteBegan(room: "r")
    h.registry.boardWriteBegan(room: "other")
    h.send(a, #"{"type":"op","id":"w1","op":{"kind":"move","item":"p","list":"l"}}"#)
    #expect(h.take(a).map { $0["code"] } == [.string("unavailable")])
    let b = h.join(2, room: "other")
    _ = h.take(b)
    h.send(b, #"{"type":"op","id":"w2","op":{"kind":"createList","list":"m","title":"M","layout":"list"}}"#)
    #expect(h.take(b).map { $0["code"] } == [.string("unavailable")])
    // An API request waits for the write's answer rather than being refused.
    let move = Intent.move(item: "p", list: "l", after: nil, before: nil)
    h.perform(h.registry.applyAPIOps("r", request: 1, ops: [("m", .success(move))], now: h.now))
    #expect(h.apiAnswers[1] == nil)
    // Nothing was stored (the board existed, or the write failed): the room goes on.
    h.perform(h.registry.boardWriteEnded(room: "r", changed: false, epoch: nil, now: h.now))
    h.perform(h.registry.boardWriteEnded(room: "other", changed: false, epoch: nil, now: h.now))
    #expect(h.apiAnswers[1].map { if case .done = $0 { true } else { false } } == true)
    h.send(a, #"{"type":"op","id":"w1","op":{"kind":"move","item":"p","list":"l"}}"#)
    #expect(h.frames(a, type: "applied").count == 2)
    h.send(b, #"{"type":"op","id":"w2","op":{"kind":"createList","list":"m","title":"M","layout":"list"}}"#)
    #expect(h.frames(b, type: "applied").count == 1)
  }

  @Test("Invalid content is refused where it is wrong, and the room is left as it was")
  func invalidContent() throws {
    let h = RoomsHarness()
    _ = h.join(1)
    let duplicate = #"{"lists":[{"id":"l","title":"L","layout":"list","items":[{"id":"x"},{"id":"x"}]}]}"#
    #expect(h.putBoard("r", try Self.content(duplicate)) == nil)
    #expect(h.refusals.first?.error.code == .duplicateItem)
    #expect(h.refusals.first?.path == "lists[0].items[1]")
    #expect(h.registry.room("r")?.seq == 0)
    let reserved = try Self.content(#"{"lists":[{"id":"_x","title":"L","layout":"list"}]}"#)
    #expect(h.putBoard("r", reserved) == nil)
    #expect(h.refusals.last?.error.code == .invalidValue)
    #expect(h.storage.calls(.boardWrite) == 0)
  }

  @Test("Deleting closes every connection of the room with 4404, joined or not; a later join finds no board")
  func deleteCloses() throws {
    let h = RoomsHarness()
    let a = h.join(1)
    h.seed(a, ids: ["p"])
    let waiting = h.open(2)
    #expect(h.deleteBoard("r") == true)
    #expect(h.closed[a]?.code == CloseCode.boardDeleted)
    #expect(h.closed[a]?.reason == "board deleted")
    #expect(h.closed[waiting]?.code == 4404)
    #expect(h.registry.room("r") == nil)
    #expect(h.deleteBoard("r") == false)
    h.close(a)
    h.close(waiting)
    let b = h.join(3)
    #expect(h.frames(b, type: "welcome").first?["seq"] == .number(0))
  }

  @Test("API ops apply in order as by api, are idempotent by id, and members see them")
  func apiOps() throws {
    let h = RoomsHarness()
    let a = h.join(1)
    h.seed(a, ids: ["p", "q"])
    _ = h.take(a)
    let move = Intent.move(item: "p", list: "l", after: "q", before: nil)
    h.perform(
      h.registry.applyAPIOps(
        "r", request: 1, ops: [("m", .success(move)), ("bad", .success(.delete(item: "nope"))), ("m", .success(move))],
        now: h.now))
    guard case .done(let results)? = h.apiAnswers[1] else {
      Issue.record("no results")
      return
    }
    #expect(results[0].seq == 4)
    #expect(results[2] == results[0])
    guard case .rejected(_, let error) = results[1] else {
      Issue.record("not rejected")
      return
    }
    #expect(error.code == .unknownItem)
    let applied = h.frames(a, type: "applied")
    #expect(applied.count == 1)
    #expect(applied.first?["by"] == .string("api"))
    #expect(h.items("l") == ["q", "p"])
    h.perform(h.registry.applyAPIOps("r", request: 2, ops: [("m", .success(move))], now: h.now))
    #expect(h.apiAnswers[2] == .done([results[0]]))
  }
}
