import ReorderCRDT
import Testing

/// An item is live when it is alive and its list is alive: derived from two LWW registers, so every
/// replica agrees whatever the order of delivery.
@Suite("Deleted lists")
struct DeletedListScenarioTests {
  let base = ["X", "Y", "Z", "P", "Q", "R"]

  /// Base boards (replicas 1, 2, 3) plus an observer, all with P moved into L2.
  func setup() throws -> (boards: [Board], observer: Board) {
    var boards = makeBase(base, extraLists: ["L2"])
    let move = try boards[0].move("P", to: "L2", after: nil, before: nil)
    for r in 1..<boards.count { deliver([move], to: &boards[r]) }
    var observer = makeBase(base, extraLists: ["L2"])[2]
    deliver([move], to: &observer)
    return (boards, observer)
  }

  @Test(
    "13: deleteList vs concurrent moves in and out: items left in the deleted list and their assignments are not live")
  func deleteListVersusMoves() throws {
    let setup = try setup()
    var boards = setup.boards
    let a = try boards[0].deleteList("L2")
    let b1 = try boards[1].move("X", to: "L2", after: nil, before: nil)
    let b2 = try boards[1].assign("Y", to: "X")
    let b3 = try boards[1].set("Y", field: "price", value: .number(4))
    let b4 = try boards[1].assign("X", to: "Z")
    let c = try boards[2].move("P", to: "L1", after: "R", before: nil)
    let end = exchangeAll(base: setup.observer, boards: boards, ops: [[a], [b1, b2, b3, b4], [c]])
    #expect(end.lists.map(\.id) == ["L1"])
    #expect(names(end) == "Y Z Q R P")
    #expect(end.index(of: "X") == nil)
    #expect(end.isLiveItem("X") == false)
    #expect(end.item("X")?.alive == true)
    #expect(end.isLiveItem("P"))
    #expect(end.assignments.isEmpty)
    #expect(end.totals(of: "X") == Totals(count: 0, sum: 0))
    #expect(end.totals(of: "Z") == Totals(count: 0, sum: 0))
    end.checkInvariants()
  }

  @Test("14: an assignment made concurrently with deleteList, of an item of the list, never counts")
  func concurrentAssignIntoDeletedList() throws {
    let setup = try setup()
    var boards = setup.boards
    let a = try boards[0].deleteList("L2")
    deliver([a], to: &boards[1])
    let assign = try boards[2].assign("P", to: "Q")
    #expect(boards[1].isLiveItem("P") == false)
    let end = exchangeAll(base: setup.observer, boards: boards, ops: [[a], [], [assign]])
    #expect(end.assignments.isEmpty)
    #expect(end.totals(of: "Q").count == 0)
  }

  @Test("Totals ignore numbers beyond ±1e15 that a remote op could carry, so sums stay finite")
  func totalsStayFinite() throws {
    var boards = makeBase(["F", "P"])
    #expect(throws: BoardError.self) { try boards[0].set("F", field: "price", value: .number(1e308)) }
    _ = try boards[0].set("F", field: "price", value: .number(1e15))
    _ = try boards[0].assign("F", to: "P")
    _ = try boards[0].assign("F", to: "P")
    #expect(boards[0].totals(of: "P") == Totals(count: 2, sum: 2e15))
  }
}
