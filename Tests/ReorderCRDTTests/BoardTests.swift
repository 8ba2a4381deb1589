import ReorderCRDT
import TestRandom
import Testing

/// Unit tests: each intent, each query, the causal buffer, snapshots, errors.
@Suite("Board operations and queries")
struct BoardTests {
  func board(_ names: [String] = ["X", "Y", "Z"]) -> Board { makeBase(names, replicas: [1])[0] }

  @Test("insert: after wins, before alone, neither appends; generated ids are counter@replica")
  func insertAnchors() throws {
    var b = board()
    let op = try b.insert(list: "L1", after: "X", before: "Z", fields: ["title": .string("n")])
    #expect(op.item == ItemID(op.id.description))
    #expect(names(b) == "X \(op.item!) Y Z")
    _ = try b.insert(list: "L1", after: nil, before: "X", fields: [:], item: "first")
    _ = try b.insert(list: "L1", after: nil, before: nil, fields: [:], item: "last")
    #expect(names(b) == "first X \(op.item!) Y Z last")
    #expect(b.item(op.item!)?.fields == ["title": .string("n")])
    b.checkInvariants()
  }

  @Test("insert refuses unknown lists, duplicate ids, foreign anchors and bad fields, changing nothing")
  func insertErrors() throws {
    var b = makeBase(["X"], replicas: [1], extraLists: ["L2"])[0]
    let before = fingerprint(b)
    #expect(throws: BoardError.unknownList("nope")) { try b.insert(list: "nope", after: nil, before: nil, fields: [:]) }
    #expect(throws: BoardError.duplicateItem("X")) {
      try b.insert(list: "L1", after: nil, before: nil, fields: [:], item: "X")
    }
    #expect(throws: BoardError.unknownItem("ghost")) {
      try b.insert(list: "L1", after: "ghost", before: nil, fields: [:])
    }
    #expect(throws: BoardError.self) { try b.insert(list: "L2", after: "X", before: nil, fields: [:]) }
    #expect(throws: BoardError.self) { try b.insert(list: "L1", after: nil, before: nil, fields: ["": .bool(true)]) }
    #expect(throws: BoardError.self) { try b.insert(list: "L1", after: nil, before: nil, fields: ["n": .number(.nan)]) }
    #expect(throws: BoardError.self) { try b.insert(list: "L1", after: nil, before: nil, fields: [:], item: "") }
    #expect(fingerprint(b) == before)
    let lamport = b.lamport
    #expect(b.lamport == lamport)
  }

  @Test("move within a list and across lists; index(of:) and item(at:) agree")
  func moves() throws {
    var b = makeBase(["X", "Y", "Z"], replicas: [1], extraLists: ["L2"])[0]
    _ = try b.move("X", to: "L1", after: "Z", before: nil)
    #expect(names(b) == "Y Z X")
    #expect(b.index(of: "X")! == ("L1", 2))
    _ = try b.move("Y", to: "L2", after: nil, before: nil)
    #expect(names(b) == "Z X")
    #expect(names(b, "L2") == "Y")
    #expect(b.item("Y")?.list == "L2")
    #expect(b.item(at: 1, in: "L1") == "X")
    #expect(b.item(at: 2, in: "L1") == nil)
    #expect(b.count(in: "L1") == 2)
    #expect(throws: BoardError.unknownItem("ghost")) { try b.move("ghost", to: "L1", after: nil, before: nil) }
    b.checkInvariants()
  }

  @Test("delete hides an item and keeps its place; restore brings it back there; a deleted item can anchor")
  func deleteAndRestore() throws {
    var b = board()
    _ = try b.delete("Y")
    #expect(names(b) == "X Z")
    #expect(b.index(of: "Y") == nil)
    #expect(b.item("Y")?.alive == false)
    _ = try b.insert(list: "L1", after: "Y", before: nil, fields: [:], item: "N")
    #expect(names(b) == "X N Z")
    _ = try b.move("Y", to: "L1", after: "Z", before: nil)
    #expect(names(b) == "X N Z")
    _ = try b.restore("Y")
    #expect(names(b) == "X N Z Y")
    b.checkInvariants()
  }

  @Test("set writes one field; the latest write wins")
  func setFields() throws {
    var b = board()
    _ = try b.set("X", field: "title", value: .string("a"))
    _ = try b.set("X", field: "price", value: .number(3))
    _ = try b.set("X", field: "title", value: .string("b"))
    #expect(b.item("X")?.fields == ["title": .string("b"), "price": .number(3)])
    #expect(b.field("title", of: "X") == .string("b"))
    #expect(throws: BoardError.self) { try b.set("X", field: "t", value: .number(.infinity)) }
    #expect(throws: BoardError.self) { try b.set("X", field: String(repeating: "f", count: 65), value: .bool(true)) }
  }

  @Test("assign, unassign and totals over a numeric field")
  func assignmentsAndTotals() throws {
    var b = board(["pizza", "soup", "john"])
    _ = try b.set("pizza", field: "price", value: .number(20))
    _ = try b.set("soup", field: "price", value: .number(7.5))
    let a1 = try b.assign("pizza", to: "john")
    _ = try b.assign("soup", to: "john", assignment: "mine")
    _ = try b.assign("pizza", to: "john")
    #expect(b.totals(of: "john") == Totals(count: 3, sum: 47.5))
    #expect(b.assignments.count == 3)
    #expect(b.assignment("mine") == Assignment(id: "mine", item: "soup", target: "john"))
    _ = try b.unassign(AssignmentID(a1.id.description))
    #expect(b.totals(of: "john") == Totals(count: 2, sum: 27.5))
    #expect(throws: BoardError.unknownAssignment(AssignmentID(a1.id.description))) {
      try b.unassign(AssignmentID(a1.id.description))
    }
    #expect(throws: BoardError.duplicateAssignment("mine")) { try b.assign("soup", to: "john", assignment: "mine") }
    _ = try b.delete("soup")
    #expect(b.totals(of: "john") == Totals(count: 1, sum: 20))
    #expect(b.totals(of: "john", sumField: "missing") == Totals(count: 1, sum: 0))
    #expect(b.totals(of: "nobody") == Totals(count: 0, sum: 0))
    b.checkInvariants()
  }

  @Test("lists: create (after nil = first), move, delete; lists in order")
  func lists() throws {
    var b = Board(replica: ReplicaID(1))
    _ = try b.createList("a", title: "A", layout: .list, after: nil)
    _ = try b.createList("b", title: "B", layout: .grid, after: "a")
    let c = try b.createList(nil, title: "C", layout: .list, after: nil)
    let cid = c.list!
    #expect(b.lists.map(\.id) == [cid, "a", "b"])
    #expect(b.lists[2] == ListInfo(id: "b", title: "B", layout: .grid))
    _ = try b.moveList(cid, after: "b")
    #expect(b.lists.map(\.id) == ["a", "b", cid])
    #expect(b.index(ofList: "b") == 1)
    _ = try b.deleteList("a")
    #expect(b.lists.map(\.id) == ["b", cid])
    #expect(b.isLive("a") == false)
    #expect(throws: BoardError.unknownList("a")) { try b.insert(list: "a", after: nil, before: nil, fields: [:]) }
    #expect(throws: BoardError.duplicateList("b")) { try b.createList("b", title: "", layout: .list, after: nil) }
    b.checkInvariants()
  }

  @Test("apply is idempotent and returns whether the op was applied now")
  func applyIsIdempotent() throws {
    var a = board()
    var b = Board(replica: ReplicaID(2))
    let ops = try [a.set("X", field: "t", value: .bool(true)), a.move("X", to: "L1", after: "Z", before: nil)]
    let setup = makeBase(["X", "Y", "Z"], replicas: [1, 2])
    b = setup[1]
    for op in ops {
      let first = b.apply(op)
      let second = b.apply(op)
      #expect(first && !second)
    }
    #expect(b.isApplied(ops[0]))
    #expect(fingerprint(b) == fingerprint(a))
    setup[0].checkInvariants()
  }

  @Test("the causal buffer holds ops whose dependencies are missing and applies them when they arrive")
  func causalBuffer() throws {
    var a = Board(replica: ReplicaID(1))
    var ops = [try a.createList("L", title: "", layout: .list, after: nil)]
    ops.append(try a.insert(list: "L", after: nil, before: nil, fields: [:], item: "X"))
    ops.append(try a.insert(list: "L", after: "X", before: nil, fields: [:], item: "Y"))
    ops.append(try a.move("X", to: "L", after: "Y", before: nil))
    ops.append(try a.set("Y", field: "t", value: .string("v")))
    ops.append(try a.assign("X", to: "Y", assignment: "as"))
    ops.append(try a.unassign("as"))
    var b = Board(replica: ReplicaID(2))
    for op in ops.dropFirst().reversed() {
      let applied = b.apply(op)
      #expect(!applied)
      b.checkInvariants()
    }
    #expect(b.pendingCount == ops.count - 1)
    #expect(b.pendingOps.count == ops.count - 1)
    var c = b
    let applied = c.apply(ops[0])
    #expect(applied)
    c.checkInvariants()
    #expect(c.pendingCount == 0)
    #expect(fingerprint(c) == fingerprint(a))
    // A snapshot keeps the buffer.
    var loaded = try Board(snapshot: b.encodedSnapshot(), replica: ReplicaID(3))
    #expect(loaded.pendingCount == ops.count - 1)
    loaded.apply(ops[0])
    #expect(fingerprint(loaded) == fingerprint(a))
  }

  @Test("inconsistent remote ops (parent in another list, left of the root) are ignored")
  func inconsistentOpsAreIgnored() throws {
    var b = makeBase(["X"], replicas: [1], extraLists: ["L2"])[0]
    let xPlace = try b.move("X", to: "L1", after: nil, before: nil).id
    let before = fingerprint(b)
    let wrongList = Op(
      id: OpID(replica: ReplicaID(5), counter: 99),
      action: .move(item: "X", list: "L2", anchor: Anchor(parent: xPlace, side: .right)))
    let appliedWrongList = b.apply(wrongList)
    #expect(!appliedWrongList)
    let leftOfRoot = Op(
      id: OpID(replica: ReplicaID(5), counter: 100),
      action: .move(item: "X", list: "L1", anchor: Anchor(parent: nil, side: .left)))
    let appliedLeftOfRoot = b.apply(leftOfRoot)
    #expect(!appliedLeftOfRoot)
    #expect(fingerprint(b) == before)
    b.checkInvariants()
  }

  @Test("a snapshot restores the same state, keeps the clock, and ignores ops it already has")
  func snapshots() throws {
    var a = board()
    var ops: [Op] = []
    ops.append(try a.move("X", to: "L1", after: "Z", before: nil))
    ops.append(try a.delete("Y"))
    ops.append(try a.set("Z", field: "price", value: .number(4)))
    ops.append(try a.assign("Z", to: "X"))
    let bytes = a.encodedSnapshot()
    #expect(Array(bytes.prefix(4)) == Board.snapshotMagic)
    var loaded = try Board(snapshot: bytes, replica: ReplicaID(1))
    loaded.checkInvariants()
    #expect(fingerprint(loaded) == fingerprint(a))
    #expect(loaded.lamport == a.lamport)
    for op in ops {
      let applied = loaded.apply(op)
      #expect(!applied)
    }
    // Later ops give the same state as replaying everything.
    let later = try a.move("Z", to: "L1", after: nil, before: "X")
    let appliedLater = loaded.apply(later)
    #expect(appliedLater)
    #expect(fingerprint(loaded) == fingerprint(a))
    let next = try loaded.insert(list: "L1", after: nil, before: nil, fields: [:])
    #expect(next.id.counter > later.id.counter)
  }

  @Test("corrupt snapshots are refused with an error")
  func corruptSnapshots() throws {
    let bytes = board().encodedSnapshot()
    #expect(throws: BoardError.self) { try Board(snapshot: [], replica: ReplicaID(1)) }
    #expect(throws: BoardError.self) { try Board(snapshot: [0x52, 0x4F, 0x52, 0x44, 99], replica: ReplicaID(1)) }
    for cut in stride(from: 0, to: bytes.count, by: 1) {
      #expect(throws: BoardError.self) { try Board(snapshot: Array(bytes[0..<cut]), replica: ReplicaID(1)) }
    }
    // Huge counts are refused before anything is reserved.
    let huge: [UInt8] = Board.snapshotMagic + [Board.snapshotVersion, 5, 0, 0, 1, 0x80, 0x80, 0x80, 0x40]
    #expect(throws: BoardError.self) { try Board(snapshot: huge, replica: ReplicaID(1)) }
    // Random damage to a rich snapshot: refused, or loaded consistent and still usable.
    var world = FuzzWorld(seed: 3)
    world.run(steps: 60)
    let rich = world.boards[0].encodedSnapshot()
    var rng = SplitMix64(seed: 11)
    for _ in 0..<1500 {
      var damaged = rich
      for _ in 0..<(1 + rng.below(3)) { damaged[5 + rng.below(rich.count - 5)] ^= UInt8(1 + rng.below(255)) }
      if var b = try? Board(snapshot: damaged, replica: ReplicaID(1)) {
        b.checkInvariants()
        for op in world.universe { b.apply(op) }
        b.checkInvariants()
      }
    }
  }
}

/// Failures found by the randomized tests, kept as small named regressions.
@Suite("Regressions")
struct RegressionTests {
  @Test("a move anchored on the moved item itself keeps it in place")
  func moveAfterItself() throws {
    var b = makeBase(["X", "Y", "Z"], replicas: [1])[0]
    _ = try b.move("Y", to: "L1", after: "Y", before: "Z")
    #expect(names(b) == "X Y Z")
    _ = try b.move("Y", to: "L1", after: nil, before: "Y")
    #expect(names(b) == "X Y Z")
    b.checkInvariants()
  }

  @Test("a fresh board answers lookups before any position exists")
  func freshBoardLookups() {
    var b = Board(replica: ReplicaID(1))
    let op = Op(
      id: OpID(replica: ReplicaID(2), counter: 3),
      action: .move(item: "x", list: "l", anchor: Anchor(parent: nil, side: .right)))
    #expect(!b.isApplied(op))
    let applied = b.apply(op)
    #expect(!applied)
    #expect(b.pendingCount == 1)
    #expect(b.index(of: "x") == nil)
    #expect(b.items(in: "l").isEmpty)
    b.checkInvariants()
  }

  @Test("two replicas creating the same explicit item id merge into one item")
  func concurrentSameExplicitID() throws {
    var boards = makeBase(["X"])
    let a = try boards[0].insert(list: "L1", after: nil, before: nil, fields: ["t": .string("a")], item: "dup")
    let b = try boards[1].insert(list: "L1", after: nil, before: "X", fields: ["t": .string("b")], item: "dup")
    let end = exchangeAll(base: makeBase(["X"])[2], boards: boards, ops: [[a], [b]])
    #expect(names(end) == "dup X")
    #expect(end.field("t", of: "dup") == .string("b"))
  }
}
