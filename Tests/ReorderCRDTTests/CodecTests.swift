import ReorderCRDT
import TestRandom
import Testing

/// Binary and JSON forms of ops, and the JSON value type.
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

  @Test("Every op kind round-trips through the JSON form and its text")
  func jsonRoundTrip() throws {
    for op in CodecTests.samples {
      #expect(try Op(json: op.json) == op)
      #expect(try Op(jsonText: op.json.serialized()) == op)
    }
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

  @Test("The JSON form is versioned and readable")
  func jsonShape() {
    let op = Op(
      id: OpID(replica: ReplicaID(1), counter: 7),
      action: .move(
        item: "3@1", list: "1@1", anchor: Anchor(parent: OpID(replica: ReplicaID(2), counter: 5), side: .left)))
    #expect(
      op.json.serialized()
        == #"{"id":"7@1","item":"3@1","kind":"move","list":"1@1","parent":"5@2","side":"left","v":1}"#)
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

  @Test("Malformed JSON ops are rejected with an error naming the problem")
  func jsonRejectsGarbage() {
    let bad = [
      "", "[]", "{}", #"{"v":2,"id":"1@1","kind":"delete","item":"x"}"#,
      #"{"v":1,"id":"1","kind":"delete","item":"x"}"#,
      #"{"v":1,"id":"0@1","kind":"delete","item":"x"}"#, #"{"v":1,"id":"1@1","kind":"explode"}"#,
      #"{"v":1,"id":"1@1","kind":"delete","item":""}"#, #"{"v":1,"id":"1@1","kind":"move","item":"x","list":"l"}"#,
      #"{"v":1,"id":"1@1","kind":"set","item":"x","field":"f","value":[1]}"#,
      #"{"v":1,"id":"1@1","kind":"createList","list":"l","title":"t","layout":"table","parent":null,"side":"right"}"#,
      #"{"v":1,"id":"01@1","kind":"delete","item":"x"}"#,
    ]
    for text in bad {
      #expect(throws: BoardError.self) { try Op(jsonText: text) }
    }
  }

  @Test("JSON values parse and serialize, including escapes and surrogate pairs")
  func jsonValues() throws {
    let text = #"{"a":[1,-2.5,1e3,true,false,null],"b":"x\"\\\/\n\u00e9\ud83c\udf55","c":{}}"#
    let value = try JSONValue.parse(text)
    #expect(value["a"] == .array([.number(1), .number(-2.5), .number(1000), .bool(true), .bool(false), .null]))
    #expect(value["b"]?.stringValue == "x\"\\/\né🍕")
    #expect(try JSONValue.parse(value.serialized()) == value)
    for bad in [
      "{", "[1,]", "01", "\"\\x\"", "\"\u{01}\"", "1 2", "tru", "\"\\ud800\"", "-", "1.",
      "[" + String(repeating: "[", count: 70),
    ] {
      #expect(throws: BoardError.self) { try JSONValue.parse(bad) }
    }
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
