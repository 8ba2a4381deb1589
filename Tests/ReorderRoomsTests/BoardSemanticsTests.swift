import Testing

@testable import ReorderRooms

/// Totals stay numbers, and a deleted list takes its items, their assignments and totals with it.
@Suite("Board semantics: bounded numbers and deleted lists")
struct BoardSemanticsTests {
  func op(_ h: RoomsHarness, _ c: ConnectionHandle, _ id: String, _ body: String) -> JSONValue {
    h.send(c, #"{"type":"op","id":"\#(id)","op":\#(body)}"#)
    return h.take(c).last ?? .null
  }

  @Test("Numbers beyond ±1e15 in fields are invalid_value (insert and set)", arguments: BoardKind.allCases)
  func hugeNumbersRejected(kind: BoardKind) {
    let h = RoomsHarness(boards: kind.factory)
    let a = h.join(1)
    h.seed(a, ids: ["p"])
    _ = h.take(a)
    let insert = op(h, a, "i", #"{"kind":"insert","list":"l","item":"x","fields":{"price":1e308}}"#)
    #expect(insert["type"] == .string("rejected"))
    #expect(insert["code"] == .string("invalid_value"))
    #expect(insert["message"]?.stringValue?.contains("fields.price") == true)
    let set = op(h, a, "s", #"{"kind":"set","item":"p","field":"price","value":-2e15}"#)
    #expect(set["code"] == .string("invalid_value"))
    let fine = op(h, a, "ok", #"{"kind":"set","item":"p","field":"price","value":1e15}"#)
    #expect(fine["type"] == .string("applied"))
  }

  @Test("Totals of the largest prices assigned twice stay numbers", arguments: BoardKind.allCases)
  func totalsStayFinite(kind: BoardKind) {
    let h = RoomsHarness(boards: kind.factory)
    let a = h.join(1)
    h.seed(a, ids: ["john"])
    _ = op(h, a, "i", #"{"kind":"insert","list":"l","item":"gold","fields":{"price":1e15}}"#)
    let first = op(h, a, "a1", #"{"kind":"assign","item":"gold","target":"john"}"#)
    let second = op(h, a, "a2", #"{"kind":"assign","item":"gold","target":"john"}"#)
    #expect(first["op"]?["totals"]?["sum"] == .number(1e15))
    #expect(second["op"]?["totals"]?["sum"] == .number(2e15))
    #expect(h.registry.room("r")!.boardJSON()["totals"]?["john"]?["sum"] == .number(2e15))
  }

  /// Lists `l` (p, q, john) and `m` (x, mary); p → mary, x → john.
  func twoLists(_ kind: BoardKind) -> (RoomsHarness, ConnectionHandle) {
    let h = RoomsHarness(boards: kind.factory)
    let a = h.join(1)
    h.seed(a, list: "l", ids: ["p", "q", "john"])
    h.seed(a, list: "m", ids: ["x", "mary"])
    _ = op(h, a, "a1", #"{"kind":"assign","item":"p","target":"mary"}"#)
    _ = op(h, a, "a2", #"{"kind":"assign","item":"x","target":"john"}"#)
    _ = op(h, a, "a3", #"{"kind":"assign","item":"q","target":"john"}"#)
    _ = h.take(a)
    return (h, a)
  }

  @Test(
    "deleteList resolves with the assignments that disappear and the new totals; the board forgets its items",
    arguments: BoardKind.allCases)
  func deleteListResolved(kind: BoardKind) {
    let (h, a) = twoLists(kind)
    // The ids the server gave the assignments, by item.
    guard case .array(let before)? = h.registry.room("r")!.boardJSON()["assignments"] else {
      Issue.record("no assignments array")
      return
    }
    var made: [String: String] = [:]
    for assignment in before {
      if case .string(let item)? = assignment["item"], case .string(let id)? = assignment["id"] { made[item] = id }
    }
    let applied = op(h, a, "d", #"{"kind":"deleteList","list":"m"}"#)
    #expect(applied["type"] == .string("applied"))
    let resolved = applied["op"]
    let unassigned = [made["p"], made["x"]].compactMap { $0 }.sorted()
    #expect(unassigned.count == 2)
    #expect(resolved?["unassigned"] == .array(unassigned.map { .string($0) }))
    #expect(resolved?["totals"]?["john"] == .object([("count", .number(1)), ("sum", .number(0))]))
    #expect(resolved?["totals"]?["mary"] == .object([("count", .number(0)), ("sum", .number(0))]))
    let board = h.registry.room("r")!.boardJSON()
    guard case .array(let assignments)? = board["assignments"] else {
      Issue.record("no assignments array")
      return
    }
    #expect(assignments.map { $0["id"] } == [made["q"].map { .string($0) }])
    #expect(board["totals"]?["mary"] == nil)
    #expect(board["totals"]?["john"]?["count"] == .number(1))
    #expect(h.items("l") == ["p", "q", "john"])
  }

  @Test("A delete list without assignments resolves without unassigned or totals", arguments: BoardKind.allCases)
  func deleteListPlain(kind: BoardKind) {
    let h = RoomsHarness(boards: kind.factory)
    let a = h.join(1)
    h.seed(a, list: "m", ids: ["x"])
    _ = h.take(a)
    let applied = op(h, a, "d", #"{"kind":"deleteList","list":"m"}"#)
    #expect(applied["op"] == .object([("kind", .string("deleteList")), ("list", .string("m"))]))
    #expect(op(h, a, "d2", #"{"kind":"deleteList","list":"m"}"#)["code"] == .string("unknown_list"))
  }

  @Test(
    "Intents naming an item of a deleted list are unknown_item; its assignments are unknown_assignment",
    arguments: BoardKind.allCases)
  func itemsOfDeletedListAreNotLive(kind: BoardKind) {
    let (h, a) = twoLists(kind)
    _ = op(h, a, "del", #"{"kind":"delete","item":"mary"}"#)
    _ = op(h, a, "res", #"{"kind":"restore","item":"mary"}"#)
    _ = op(h, a, "d", #"{"kind":"deleteList","list":"m"}"#)
    let seq = h.registry.room("r")!.seq
    let cases: [(String, String)] = [
      (#"{"kind":"move","item":"x","list":"l"}"#, "unknown_item"),
      (#"{"kind":"delete","item":"x"}"#, "unknown_item"),
      (#"{"kind":"restore","item":"x"}"#, "unknown_item"),
      (#"{"kind":"set","item":"x","field":"price","value":3}"#, "unknown_item"),
      (#"{"kind":"assign","item":"x","target":"john"}"#, "unknown_item"),
      (#"{"kind":"assign","item":"q","target":"mary"}"#, "unknown_item"),
      (#"{"kind":"unassign","assignment":"_a9"}"#, "unknown_assignment"),
      (#"{"kind":"insert","list":"m","fields":{}}"#, "unknown_list"),
      (#"{"kind":"move","item":"p","list":"m"}"#, "unknown_list"),
      (#"{"kind":"moveList","list":"m"}"#, "unknown_list"),
    ]
    for (k, (body, code)) in cases.enumerated() {
      let reply = op(h, a, "r\(k)", body)
      #expect(reply["type"] == .string("rejected"), "\(body)")
      #expect(reply["code"] == .string(code), "\(body)")
    }
    #expect(h.registry.room("r")!.seq == seq)
    h.send(a, #"{"type":"drag","phase":"start","item":"x"}"#)
    #expect(h.take(a).last?["code"] == .string("unknown_item"))
  }

  @Test("A deleted list stays deleted after a restart (snapshot and replay)", arguments: BoardKind.allCases)
  func deleteListSurvivesRestart(kind: BoardKind) {
    let (h, a) = twoLists(kind)
    _ = op(h, a, "d", #"{"kind":"deleteList","list":"m"}"#)
    let before = h.registry.room("r")!.boardJSON()
    h.close(a)
    h.restart()
    let b = h.join(2)
    #expect(h.take(b).first?["board"] == before)
  }
}
