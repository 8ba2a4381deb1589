import ReorderCRDT
import Testing

@Suite("Making ops without applying them")
struct BoardMakeTests {
  @Test("A made op changes nothing but the clock, and applies as the intent would")
  func madeOpAppliesLikeTheIntent() throws {
    var boards = makeBase(["a", "b", "c"], replicas: [1, 2])
    var maker = boards[1]
    let before = fingerprint(maker)
    let clock = maker.lamport
    let op = try maker.makeMove("a", to: "L1", after: "c", before: nil)
    #expect(fingerprint(maker) == before)
    #expect(maker.lamport == clock + 1)
    #expect(op.lamport == clock + 1)
    var intent = boards[1]
    let direct = try intent.move("a", to: "L1", after: "c", before: nil)
    #expect(direct == op)
    let appliedHere = maker.apply(op)
    #expect(appliedHere)
    maker.checkInvariants()
    #expect(fingerprint(maker) == fingerprint(intent))
    let appliedThere = boards[0].apply(op)
    #expect(appliedThere)
    #expect(names(boards[0]) == "b c a")
  }

  @Test("Ops made one after another, none applied, get distinct ids and generated ids")
  func madeOpsHaveDistinctIDs() throws {
    var board = makeBase(["a"], replicas: [7])[0]
    let first = try board.makeInsert(list: "L1", after: nil, before: nil, fields: [:])
    let second = try board.makeInsert(list: "L1", after: nil, before: nil, fields: [:])
    #expect(first.id != second.id)
    #expect(first.item != second.item)
    let firstApplied = board.apply(first)
    let secondApplied = board.apply(second)
    #expect(firstApplied && secondApplied)
    board.checkInvariants()
    #expect(board.items(in: "L1").count == 3)
  }

  @Test("A refused intent leaves the clock alone")
  func refusedMakeChangesNothing() {
    var board = makeBase(["a"], replicas: [3])[0]
    let clock = board.lamport
    #expect(throws: BoardError.unknownItem("zz")) { try board.makeMove("zz", to: "L1", after: nil, before: nil) }
    #expect(throws: BoardError.unknownList("L9")) { try board.makeDeleteList("L9") }
    #expect(throws: BoardError.duplicateItem("a")) {
      try board.makeInsert(list: "L1", after: nil, before: nil, fields: [:], item: "a")
    }
    #expect(board.lamport == clock)
  }

  @Test("Every kind of made op, applied in one order by three replicas, converges")
  func madeOpsOfEveryKindConverge() throws {
    var boards = makeBase(["a", "b", "c", "p"], replicas: [1, 2, 3], extraLists: ["L2"])
    // Replicas 1 and 2 each make ops against the same state; the shared order is 1's, then 2's.
    var ops: [Op] = []
    ops.append(try boards[0].makeMove("a", to: "L2", after: nil, before: nil))
    ops.append(try boards[0].makeSet("b", field: "title", value: .string("B")))
    ops.append(try boards[0].makeAssign("c", to: "p", assignment: "x1"))
    ops.append(try boards[0].makeCreateList("L3", title: "Three", layout: .grid, after: "L1"))
    ops.append(try boards[1].makeMove("a", to: "L1", after: "c", before: nil))
    ops.append(try boards[1].makeDelete("b"))
    ops.append(try boards[1].makeSet("b", field: "title", value: .string("bee")))
    ops.append(try boards[1].makeMoveList("L2", after: nil))
    for i in boards.indices {
      for op in ops {
        let applied = boards[i].apply(op)
        #expect(applied)
      }
      boards[i].checkInvariants()
    }
    #expect(fingerprint(boards[0]) == fingerprint(boards[1]))
    #expect(fingerprint(boards[1]) == fingerprint(boards[2]))
    // Replica 2's move was made later in the Lamport order: it wins.
    #expect(names(boards[2]) == "c a p")
    #expect(boards[2].lists.map(\.id) == ["L2", "L1", "L3"])
    // More ops made on top, including the list and assignment ops.
    var later: [Op] = []
    later.append(try boards[2].makeRestore("b"))
    later.append(try boards[2].makeUnassign("x1"))
    later.append(try boards[2].makeDeleteList("L3"))
    for i in boards.indices {
      for op in later {
        let applied = boards[i].apply(op)
        #expect(applied)
      }
      boards[i].checkInvariants()
    }
    #expect(fingerprint(boards[0]) == fingerprint(boards[2]))
    #expect(boards[0].assignments.isEmpty)
    #expect(boards[0].isLiveItem("b"))
  }
}
