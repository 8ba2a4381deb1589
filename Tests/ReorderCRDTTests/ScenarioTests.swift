import ReorderCRDT
import Testing

/// The numbered merge scenarios the CRDT must get right. Replicas A=1, B=2, C=3; base list
/// L1 = X Y Z P Q R. Each ends with a full exchange in both orders, with every op delivered once
/// and twice (`exchangeAll`).
@Suite("Named merge scenarios")
struct ScenarioTests {
  let base = ["X", "Y", "Z", "P", "Q", "R"]

  @Test("1: concurrent moves with equal Lamport clocks: the larger replica wins")
  func concurrentMovesEqualLamport() throws {
    var boards = makeBase(base)
    let a = try boards[0].move("X", to: "L1", after: "Q", before: "R")
    let b = try boards[1].move("X", to: "L1", after: "R", before: nil)
    #expect(a.lamport == b.lamport)
    let end = exchangeAll(base: makeBase(base)[2], boards: boards, ops: [[a], [b]])
    #expect(names(end) == "Y Z P Q R X")
  }

  @Test("2: concurrent moves: a larger Lamport clock beats the replica id")
  func lamportBeatsReplica() throws {
    var boards = makeBase(base)
    let a0 = try boards[0].set("Y", field: "title", value: .string("why"))
    let a1 = try boards[0].move("X", to: "L1", after: "Q", before: "R")
    let b = try boards[1].move("X", to: "L1", after: "R", before: nil)
    let end = exchangeAll(base: makeBase(base)[2], boards: boards, ops: [[a0, a1], [b]])
    #expect(names(end) == "Y Z P Q X R")
  }

  @Test("3: a delete wins over a concurrent move; a later restore shows the item at the moved place")
  func deleteWinsOverMove() throws {
    var boards = makeBase(base)
    let a = try boards[0].move("X", to: "L1", after: "Q", before: "R")
    let b = try boards[1].delete("X")
    var end = exchangeAll(base: makeBase(base)[2], boards: boards, ops: [[a], [b]])
    #expect(names(end) == "Y Z P Q R")
    #expect(end.index(of: "X") == nil)
    #expect(end.item("X")?.alive == false)
    let restore = try end.restore("X")
    end.checkInvariants()
    #expect(names(end) == "Y Z P Q X R")
    var other = boards[1]
    deliver([a], to: &other)
    deliver([restore], to: &other, times: 2)
    #expect(fingerprint(other) == fingerprint(end))
  }

  @Test("4: crossing moves (X after Y, Y after X): each item exactly once, same order everywhere")
  func crossingMoves() throws {
    let base = ["X", "P", "Y", "Q"]
    var boards = makeBase(base)
    let a = try boards[0].move("X", to: "L1", after: "Y", before: "Q")
    let b = try boards[1].move("Y", to: "L1", after: "X", before: "P")
    let end = exchangeAll(base: makeBase(base)[2], boards: boards, ops: [[a], [b]])
    let order = end.items(in: "L1").map(\.rawValue)
    #expect(order.sorted() == ["P", "Q", "X", "Y"])
    #expect(names(end) == "Y P X Q")
  }

  @Test("5: concurrent runs typed forward at the same gap stay contiguous")
  func forwardRunsDoNotInterleave() throws {
    var boards = makeBase(base)
    var runs: [[Op]] = [[], []]
    for (r, prefix) in ["a", "b"].enumerated() {
      var previous: ItemID = "P"
      for k in 1...3 {
        let id = ItemID("\(prefix)\(k)")
        runs[r].append(try boards[r].insert(list: "L1", after: previous, before: "Q", fields: [:], item: id))
        previous = id
      }
    }
    #expect(names(boards[0]) == "X Y Z P a1 a2 a3 Q R")
    let end = exchangeAll(base: makeBase(base)[2], boards: boards, ops: runs)
    let merged = names(end)
    #expect(merged == "X Y Z P a1 a2 a3 b1 b2 b3 Q R" || merged == "X Y Z P b1 b2 b3 a1 a2 a3 Q R")
  }

  @Test("5: concurrent runs typed backward (each at the same index) stay contiguous")
  func backwardRunsDoNotInterleave() throws {
    var boards = makeBase(base)
    var runs: [[Op]] = [[], []]
    for (r, prefix) in ["a", "b"].enumerated() {
      for k in [3, 2, 1] {
        let index = boards[r].index(of: "P")!.index + 1
        let before = boards[r].item(at: index, in: "L1")
        runs[r].append(
          try boards[r].insert(list: "L1", after: "P", before: before, fields: [:], item: ItemID("\(prefix)\(k)")))
      }
    }
    #expect(names(boards[1]) == "X Y Z P b1 b2 b3 Q R")
    let end = exchangeAll(base: makeBase(base)[2], boards: boards, ops: runs)
    let merged = names(end)
    #expect(merged == "X Y Z P a1 a2 a3 b1 b2 b3 Q R" || merged == "X Y Z P b1 b2 b3 a1 a2 a3 Q R")
  }

  @Test("6: a move right before an item that is concurrently deleted still lands there")
  func moveBeforeDeletedAnchor() throws {
    let base = ["X", "Y", "P", "Q", "Z", "R"]
    var boards = makeBase(base)
    let a = try boards[0].move("X", to: "L1", after: nil, before: "Z")
    let b = try boards[1].delete("Z")
    let end = exchangeAll(base: makeBase(base)[2], boards: boards, ops: [[a], [b]])
    #expect(names(end) == "Y P Q X R")
  }

  @Test("7: a move and an insert after the same item both land directly after it, in one order")
  func moveAndInsertAtSameGap() throws {
    var boards = makeBase(base)
    let a = try boards[0].move("X", to: "L1", after: "Q", before: "R")
    let b = try boards[1].insert(list: "L1", after: "Q", before: "R", fields: [:], item: "N")
    let end = exchangeAll(base: makeBase(base)[2], boards: boards, ops: [[a], [b]])
    #expect(names(end) == "Y Z P Q X N R" || names(end) == "Y Z P Q N X R")
  }

  @Test("8: a field edit and a concurrent move are both kept; concurrent edits are LWW")
  func fieldsAndMoves() throws {
    var boards = makeBase(base)
    let a = try boards[0].set("X", field: "title", value: .string("from A"))
    let b = try boards[1].move("X", to: "L1", after: "R", before: nil)
    var end = exchangeAll(base: makeBase(base)[2], boards: boards, ops: [[a], [b]])
    #expect(names(end) == "Y Z P Q R X")
    #expect(end.field("title", of: "X") == .string("from A"))

    boards = makeBase(base)
    let a2 = try boards[0].set("X", field: "title", value: .string("A"))
    let b2 = try boards[1].set("X", field: "title", value: .string("B"))
    end = exchangeAll(base: makeBase(base)[2], boards: boards, ops: [[a2], [b2]])
    #expect(end.field("title", of: "X") == .string("B"))
    _ = try end.set("X", field: "title", value: .string("later"))
    #expect(end.field("title", of: "X") == .string("later"))
  }

  @Test("9: concurrent moves of one item into two different lists: it ends in exactly one")
  func movesIntoTwoLists() throws {
    var boards = makeBase(base, extraLists: ["L2", "L3"])
    let a = try boards[0].move("X", to: "L2", after: nil, before: nil)
    let b = try boards[1].move("X", to: "L3", after: nil, before: nil)
    let end = exchangeAll(base: makeBase(base, extraLists: ["L2", "L3"])[2], boards: boards, ops: [[a], [b]])
    let lists: [ListID] = ["L1", "L2", "L3"]
    #expect(lists.filter { end.items(in: $0).contains("X") } == ["L3"])
    #expect(end.index(of: "X")! == ("L3", 0))
  }

  @Test("10: a move to another list and a concurrent move within the list: exactly one place")
  func crossListVersusWithinList() throws {
    var boards = makeBase(base, extraLists: ["L2"])
    let a = try boards[0].move("X", to: "L2", after: nil, before: nil)
    let b = try boards[1].move("X", to: "L1", after: "P", before: "Q")
    let end = exchangeAll(base: makeBase(base, extraLists: ["L2"])[2], boards: boards, ops: [[a], [b]])
    #expect(names(end, "L1") == "Y Z P X Q R")
    #expect(names(end, "L2") == "")
  }

  @Test("11: assignments of one food to two people are both kept; unassign vs concurrent re-assign: add wins")
  func assignments() throws {
    let base = ["F", "P", "Q"]
    var boards = makeBase(base)
    _ = try boards[0].set("F", field: "price", value: .number(12.5))
    let setPrice = try boards[0].set("F", field: "price", value: .number(12.5))
    let a = try boards[0].assign("F", to: "P")
    let b = try boards[1].assign("F", to: "Q")
    var end = exchangeAll(base: makeBase(base)[2], boards: boards, ops: [[setPrice, a], [b]])
    #expect(end.assignments.count == 2)
    #expect(end.totals(of: "P") == Totals(count: 1, sum: 12.5))
    #expect(end.totals(of: "Q") == Totals(count: 1, sum: 12.5))

    // A unassigns F→P while B concurrently assigns F→P again: B's assignment is new and survives.
    boards = [end, end]
    boards[0] = try Board(snapshot: end.encodedSnapshot(), replica: ReplicaID(1))
    boards[1] = try Board(snapshot: end.encodedSnapshot(), replica: ReplicaID(2))
    let firstAssignment = end.assignments.first { $0.target == "P" }!.id
    let un = try boards[0].unassign(firstAssignment)
    let again = try boards[1].assign("F", to: "P")
    end = exchangeAll(base: end, boards: boards, ops: [[un], [again]])
    #expect(end.assignments.filter { $0.target == "P" }.map(\.id) == [AssignmentID(again.id.description)])
    #expect(end.totals(of: "P") == Totals(count: 1, sum: 12.5))
  }

  @Test("12: three replicas: a delete made after seeing a move beats a concurrent move")
  func deleteAfterSeenMoveBeatsConcurrentMove() throws {
    var boards = makeBase(base)
    let a = try boards[0].move("X", to: "L1", after: "Q", before: "R")
    deliver([a], to: &boards[2])
    let c = try boards[2].delete("X")
    let b = try boards[1].move("X", to: "L1", after: "R", before: nil)
    let end = exchangeAll(base: makeBase(base)[2], boards: boards, ops: [[a], [b], [c]])
    #expect(names(end) == "Y Z P Q R")
    #expect(end.item("X")?.alive == false)
  }
}
