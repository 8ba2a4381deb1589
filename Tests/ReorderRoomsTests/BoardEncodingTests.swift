import Testing

@testable import ReorderRooms

@Suite("The board's JSON written without the value tree")
struct BoardEncodingTests {
  /// A board made by `intents`, one seq each.
  private func board(_ intents: [Intent]) throws -> CRDTRoomBoard {
    var board = CRDTRoomBoard()
    for (index, intent) in intents.enumerated() {
      _ = try board.perform(intent, ids: GeneratedIDs(seq: UInt64(index + 1)))
    }
    return board
  }

  @Test("equals boardJSON().encoded() for every demo board")
  func demoBoards() throws {
    for (room, intents) in DemoBoards.all {
      let board = try board(intents)
      #expect(board.encodedBoardJSON() == board.boardJSON().encoded(), "\(room)")
    }
  }

  @Test("equals it with escapes, every field kind, assignments, totals, deletions and an empty list")
  func everyShape() throws {
    var intents: [Intent] = DemoBoards.all.first { $0.room == "food" }!.intents
    intents += [
      .insert(
        list: "foods", after: nil, before: nil,
        fields: [
          "title": .string("a \"quoted\" \\ title\n\u{01}ü"), "price": .number(0.1), "spicy": .bool(true),
          "hot": .bool(false), "big": .number(-123456.75),
        ], item: "odd"),
      .assign(item: "pizza", target: "john"), .assign(item: "odd", target: "john"),
      .assign(item: "pasta", target: "tom"), .delete(item: "burger"),
      .createList(list: "empty", title: "Nothing \"yet\"", layout: "list", after: nil),
    ]
    let board = try board(intents)
    let direct = board.encodedBoardJSON()
    #expect(direct == board.boardJSON().encoded(), "\(String(decoding: direct, as: UTF8.self))")
    #expect(try JSONValue.parse(direct) == board.boardJSON())
  }
}
