import ReorderCRDT
import TestRandom
import Testing

/// The binary form of ops (their one wire form) and their text description.
@Suite("Op encoding")
struct CodecTests {
  static let replica = ReplicaID(3)
  static let other = ReplicaID(UInt64.max)

  static var samples: [Op] {
    let anchors = [
      Anchor(parent: nil, side: .right), Anchor(parent: OpID(replica: replica, counter: 7), side: .left),
      Anchor(parent: OpID(replica: other, counter: 1 << 40), side: .right),
    ]
    var ops: [Op] = []
    var counter: UInt64 = 1
    func add(_ action: Op.Action) {
      ops.append(Op(id: OpID(replica: replica, counter: counter), action: action))
      counter += 1
    }
    for anchor in anchors {
      add(
        .insert(
          item: "12@3", list: "L", anchor: anchor,
          fields: [
            "title": .string("Pizza \"🍕\"\n"), "price": .number(20), "half": .number(-0.5), "big": .number(1e300),
            "vegan": .bool(true), "spicy": .bool(false),
          ]))
      add(.move(item: "4@18446744073709551615", list: "1@3", anchor: anchor))
      add(.createList(list: "foods", title: "Food", layout: .grid, anchor: anchor))
      add(.moveList(list: "foods", anchor: anchor))
    }
    add(.delete(item: "x"))
    add(.restore(item: "x"))
    add(.set(item: "x", field: "price", value: .number(12.25)))
    add(.assign(assignment: "a1", item: "5@3", target: "person"))
    add(.unassign(assignment: "9@1"))
    add(.deleteList(list: "foods"))
    return ops
  }

  @Test("Every op kind round-trips through the binary form")
  func binaryRoundTrip() throws {
    for op in CodecTests.samples {
      #expect(try Op(encoded: op.encoded()) == op)
    }
  }

  @Test("Every op kind has its own header byte: format version 1 in the high nibble, the kind below")
  func binaryHeaders() throws {
    var kinds: [String: UInt8] = [:]
    for op in CodecTests.samples {
      let header = op.encoded()[0]
      #expect(header >> 4 == Op.binaryVersion)
      #expect(kinds.updateValue(header, forKey: op.kind).map { $0 == header } ?? true)
    }
    #expect(kinds.count == 10)
    #expect(Set(kinds.values).count == 10)
  }

  @Test("A move encodes in at most 32 bytes, even with 64-bit replica ids")
  func moveIsSmall() throws {
    var board = Board(replica: ReplicaID(0xDEAD_BEEF_CAFE_F00D))
    _ = try board.createList(nil, title: "l", layout: .list, after: nil)
    let list = board.lists[0].id
    var previous: ItemID? = nil
    for _ in 0..<3000 { previous = try board.insert(list: list, after: previous, before: nil, fields: [:]).item }
    let move = try board.move(
      board.item(at: 5, in: list)!, to: list, after: board.item(at: 2000, in: list), before: nil)
    #expect(move.encoded().count <= 32)
  }

  @Test("The binary layout of a move: header, id, item, list and anchor in the fewest bytes")
  func binaryMoveLayout() throws {
    let op = Op(
      id: OpID(replica: ReplicaID(1), counter: 300),
      action: .move(
        item: "3@1", list: "1@2", anchor: Anchor(parent: OpID(replica: ReplicaID(2), counter: 5), side: .left)))
    // 0x11: version 1, kind move; replica 1; counter 300 (LEB128 0xAC 0x02); item "3@1": same
    // replica (0, 3); list "1@2": other replica (1, 1, 2); anchor: left side, other replica (4, 5, 2).
    #expect(op.encoded() == [0x11, 1, 0xAC, 0x02, 0, 3, 1, 1, 2, 4, 5, 2])
    let explicit = Op(id: op.id, action: .delete(item: "pizza"))
    #expect(explicit.encoded() == [0x12, 1, 0xAC, 0x02, 2, 5] + Array("pizza".utf8))
    let root = Op(id: op.id, action: .moveList(list: "L", anchor: Anchor(parent: nil, side: .right)))
    #expect(root.encoded() == [0x18, 1, 0xAC, 0x02, 2, 1, UInt8(ascii: "L"), 1])
  }

  @Test("Field values keep their type and exact value in the binary form")
  func binaryFieldValues() throws {
    let values: [FieldValue] = [
      .string(""), .string("Pizza \"🍕\"\n"), .number(0), .number(-0.0), .number(20), .number(-7),
      .number(9_007_199_254_740_991), .number(9_007_199_254_740_992), .number(-0.5), .number(1e300),
      .number(.leastNonzeroMagnitude), .bool(true), .bool(false),
    ]
    for value in values {
      let op = Op(id: OpID(replica: ReplicaID(1), counter: 1), action: .set(item: "x", field: "f", value: value))
      let decoded = try Op(encoded: op.encoded())
      #expect(decoded == op)
      if case .set(_, _, .number(let d)) = decoded.action, case .number(let e) = value {
        #expect(d.sign == e.sign)  // -0 stays -0
      }
    }
    // Integers take a zigzag varint, fractions 8 bytes.
    func size(_ value: FieldValue) -> Int {
      Op(id: OpID(replica: ReplicaID(1), counter: 1), action: .set(item: "x", field: "f", value: value)).encoded().count
    }
    #expect(size(.number(20)) == size(.bool(true)) + 1)
    #expect(size(.number(-0.5)) == size(.bool(true)) + 8)
  }

  @Test("An op's description names its kind and members")
  func descriptions() {
    let move = Op(
      id: OpID(replica: ReplicaID(1), counter: 7),
      action: .move(
        item: "3@1", list: "1@1", anchor: Anchor(parent: OpID(replica: ReplicaID(2), counter: 5), side: .left)))
    #expect(move.description == "7@1 move item=3@1 list=1@1 parent=5@2 side=left")
    let set = Op(id: move.id, action: .set(item: "x", field: "title", value: .string("a b")))
    #expect(set.description == #"7@1 set item=x title="a b""#)
    for op in CodecTests.samples { #expect(op.description.hasPrefix("\(op.id) \(op.kind)")) }
  }

  @Test("Malformed binary ops are rejected with an error, never a crash")
  func binaryRejectsGarbage() throws {
    let good = CodecTests.samples[0].encoded()
    #expect(throws: BoardError.self) { try Op(encoded: []) }
    #expect(throws: BoardError.self) { try Op(encoded: [0x20]) }  // version 2
    #expect(throws: BoardError.self) { try Op(encoded: [0x1F, 1, 1]) }  // kind 15
    #expect(throws: BoardError.self) { try Op(encoded: good + [0]) }  // trailing byte
    #expect(throws: BoardError.self) { try Op(encoded: [0x12, 1, 0, 0, 1]) }  // counter 0
    #expect(throws: BoardError.self) {
      try Op(encoded: [0x12, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F])
    }
    for cut in 0..<good.count {
      #expect(throws: BoardError.self) { try Op(encoded: Array(good[0..<cut])) }
    }
    // Random bytes: either an op or an error.
    var rng = SplitMix64(seed: 5)
    for _ in 0..<2000 {
      let bytes = (0..<(1 + rng.below(30))).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
      _ = try? Op(encoded: bytes)
    }
  }

  @Test("Malformed parts of a binary op are rejected: id, anchor and value forms, UTF-8, lengths")
  func binaryRejectsBadParts() {
    let head: [UInt8] = [0x12, 1, 1]  // version 1, delete, replica 1, counter 1
    #expect(throws: BoardError.self) { try Op(encoded: head + [3, 1]) }  // id form 3
    #expect(throws: BoardError.self) { try Op(encoded: head + [2, 0]) }  // empty explicit id
    #expect(throws: BoardError.self) { try Op(encoded: head + [2, 2, 0xC3, 0x28]) }  // invalid UTF-8
    #expect(throws: BoardError.self) { try Op(encoded: head + [2, 0x81, 0x01] + Array(repeating: 0x61, count: 129)) }
    let move: [UInt8] = [0x11, 1, 1, 0, 3, 0, 1]
    #expect(throws: BoardError.self) { try Op(encoded: move + [6, 5]) }  // anchor form 3
    let set: [UInt8] = [0x14, 1, 1, 0, 3, 1, UInt8(ascii: "f")]
    #expect(throws: BoardError.self) { try Op(encoded: set + [5]) }  // value form 5
    let infinity = Double.infinity.bitPattern
    #expect(throws: BoardError.self) {
      try Op(encoded: set + [1] + (0..<8).map { UInt8(truncatingIfNeeded: infinity >> (8 * $0)) })
    }
    #expect(throws: BoardError.self) { try Op(encoded: [0x17, 1, 1, 2, 1, 0x4C, 0, 2, 1]) }  // layout 2
  }

  @Test("Generated ids have the canonical form counter@replica")
  func generatedIDs() throws {
    #expect(OpID(text: "12@1") == OpID(replica: ReplicaID(1), counter: 12))
    #expect(OpID(text: "18446744073709551615@0") == OpID(replica: ReplicaID(0), counter: .max))
    for bad in ["", "@", "1@", "@1", "01@1", "1@01", "1@1@1", "1.5@1", "18446744073709551616@1", " 1@1"] {
      #expect(OpID(text: bad) == nil)
    }
    #expect(OpID(replica: ReplicaID(1), counter: 12).description == "12@1")
  }
}
