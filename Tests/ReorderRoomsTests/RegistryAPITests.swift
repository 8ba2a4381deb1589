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

  @Test("A replaced board welcomes its members again once durable, with the new epoch and board, before any new op")
  func replaceWelcomesAgain() throws {
    let h = RoomsHarness(autoDurable: false)
    let a = h.join(1)
    h.makeDurable()
    h.seed(a, ids: ["p", "q"])
    h.makeDurable()
    let oldEpoch = try #require(h.registry.room("r")?.epoch)
    _ = h.take(a)
    let made = h.registry.createBoard("r", content: try Self.content(Self.twoItems), replace: false, now: h.now)
    guard case .exists = made else {
      Issue.record("a board with ops was created over: \(made)")
      return
    }
    guard
      case .created(let board) = h.registry.createBoard(
        "r", content: try Self.content(Self.twoItems), replace: true, now: h.now)
    else {
      Issue.record("not replaced")
      return
    }
    #expect(board.replaced)
    #expect(board.seq == 3)
    #expect(board.epoch != oldEpoch)
    #expect(board.entries.map(\.seq) == [1, 2, 3])
    // An op of the new history while it is being stored waits behind it.
    h.send(a, #"{"type":"op","id":"n1","op":{"kind":"move","item":"x","list":"new","after":"y"}}"#)
    #expect(h.take(a).isEmpty)
    h.perform(h.registry.durable(room: "r", upTo: board.seq))
    let frames = h.take(a)
    #expect(frames.first?["type"] == .string("welcome"))
    #expect(frames.first?["epoch"] == .string(board.epoch))
    #expect(frames.first?["seq"] == .number(3))
    // The board as of seq 3: the move (seq 4) comes after it.
    #expect(Self.boardItems(frames.first?["board"], list: "new") == ["x", "y"])
    #expect(frames.dropFirst().allSatisfy { $0["type"] != .string("welcome") })
    h.makeDurable()
    #expect(h.take(a).map { $0["seq"] } == [.number(4)])
    #expect(h.items("new") == ["y", "x"])
  }

  @Test("Invalid content is refused where it is wrong, and the room is left as it was")
  func invalidContent() throws {
    let h = RoomsHarness()
    _ = h.join(1)
    let duplicate = #"{"lists":[{"id":"l","title":"L","layout":"list","items":[{"id":"x"},{"id":"x"}]}]}"#
    guard
      case .invalid(let refusal) = h.registry.createBoard(
        "r", content: try Self.content(duplicate), replace: false, now: h.now)
    else {
      Issue.record("accepted")
      return
    }
    #expect(refusal.error.code == .duplicateItem)
    #expect(refusal.path == "lists[0].items[1]")
    #expect(h.registry.room("r")?.seq == 0)
    let reserved = try Self.content(#"{"lists":[{"id":"_x","title":"L","layout":"list"}]}"#)
    guard case .invalid(let serverID) = h.registry.createBoard("r", content: reserved, replace: false, now: h.now)
    else {
      Issue.record("a server id was accepted")
      return
    }
    #expect(serverID.error.code == .invalidValue)
  }

  @Test("Deleting closes every connection of the room with 4404, joined or not, and leaves an empty board")
  func deleteCloses() throws {
    let h = RoomsHarness()
    let a = h.join(1)
    h.seed(a, ids: ["p"])
    let waiting = h.open(2)
    let (existed, actions) = h.registry.deleteBoard("r", now: h.now)
    h.perform(actions)
    #expect(existed)
    #expect(h.closed[a]?.code == CloseCode.boardDeleted)
    #expect(h.closed[a]?.reason == "board deleted")
    #expect(h.closed[waiting]?.code == 4404)
    #expect(h.registry.room("r")?.seq == 0)
    #expect(h.registry.deleteBoard("r", now: h.now).existed == false)
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
