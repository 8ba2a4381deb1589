import Testing

@testable import ReorderRooms

@Suite("JSON parser and writer")
struct JSONTests {
  @Test("Parses every JSON kind and writes it back compactly")
  func roundTrip() throws {
    let text = #"{"a":[1,-2.5,1e3,true,false,null],"b":{"c":"x\"y\\z\n\u00e9\ud83d\ude00"},"d":[]}"#
    let value = try JSONValue.parse(text)
    #expect(value["a"] == .array([.number(1), .number(-2.5), .number(1000), .bool(true), .bool(false), .null]))
    #expect(value["b"]?["c"] == .string("x\"y\\z\né😀"))
    #expect(try JSONValue.parse(value.encoded()) == value)
    #expect(JSONValue.object([("n", .number(20)), ("f", .number(0.5))]).jsonText == #"{"n":20,"f":0.5}"#)
  }

  @Test("Rejects nesting deeper than the limit without recursing further")
  func deepNesting() {
    let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
    #expect(throws: JSONParseError.self) { try JSONValue.parse(deep) }
    let ok = String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
    #expect((try? JSONValue.parse(ok)) != nil)
  }

  @Test("Rejects numbers beyond Double and overlong number literals")
  func hugeNumbers() {
    #expect(throws: JSONParseError.self) { try JSONValue.parse("1e400") }
    #expect(throws: JSONParseError.self) { try JSONValue.parse("-1e400") }
    #expect(throws: JSONParseError.self) { try JSONValue.parse(String(repeating: "9", count: 1000)) }
    #expect((try? JSONValue.parse("123456789012345678901234567890"))?.numberValue ?? 0 > 1e29)
  }

  @Test(
    "Rejects malformed documents",
    arguments: [
      "", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "tru", "nul", "01", "1.", ".5", "+1", "\"abc", "\"\\x\"",
      "\"\\ud800\"", "\"\\udc00x\"", "{\"a\":1}x", "{\"a\":1,\"a\":2}", "{1:2}", "\"\u{01}\"", "[1 2]",
    ])
  func malformed(text: String) {
    #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
  }

  @Test("Rejects invalid UTF-8 inside strings")
  func invalidUTF8() {
    #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0xC3, 0x28, 0x22]) }
    #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0x5C, 0x6E, 0xFF, 0x22]) }
  }

  @Test("Escapes control characters when writing")
  func writesEscapes() {
    #expect(JSONValue.string("a\u{01}b\t").jsonText == #""a\u0001b\t""#)
  }
}

@Suite("OpRecord keys read from payloads")
struct OpRecordKeyTests {
  @Test("the fast key equals the parsed one, with and without escapes in the ids")
  func keys() throws {
    for (id, client) in [("c-1:7", "c-1"), (#"we"ird\id"#, "c\"2"), ("ü✓", "ünicode"), ("", "x")] {
      let record = OpRecord(
        id: id, client: client, by: "s1", resolved: .object([("kind", .string("move"))]), logged: [1, 2])
      #expect(try OpRecord.key(payload: record.encoded()) == OpRecord.key(client: client, id: id), "\(id)")
    }
    #expect(throws: (any Error).self) { try OpRecord.key(payload: [1, 0, 0]) }
  }
}

@Suite("OpRecord applied frames spliced from payloads")
struct OpRecordFrameTests {
  /// Records of every shape a header takes: escapes and non-ASCII in every string, nested
  /// objects and arrays with brackets inside strings, numbers, an epoch after the op.
  static let records: [OpRecord] = {
    let ops: [JSONValue] = [
      .object([("kind", .string("move")), ("item", .string("paris")), ("after", .null), ("index", .number(3))]),
      .object([
        ("kind", .string("insert")), ("title", .string(#"a "quoted" \ {title} [x], "#)),
        ("tags", .array([.string("]"), .number(-2.5), .bool(true), .object([])])), ("t", .number(1e21)),
      ]),
      .object([("kind", .string("rename")), ("name", .string("ü✓ \u{01}\n\t"))]),
      .array([]),
    ]
    var records: [OpRecord] = []
    for (index, op) in ops.enumerated() {
      for (id, client, by) in [("c-1:7", "c-1", "s1"), (#"we"ird\id"#, "c\"2", #"s\"3"#), ("ü✓", "ünicode", "")] {
        var record = OpRecord(id: id, client: client, by: by, resolved: op, logged: [1, 2, UInt8(index)])
        if index == 1 { record.epoch = "e-\(id)" }
        if index != 1 { record.at = 1_765_000_000_000 + Int64(index) }
        if index >= 2 { record.actor = OpActor(sub: index == 2 ? "user \"\(id)\"" : nil, name: by) }
        records.append(record)
      }
    }
    return records
  }()

  @Test("the key, frame and stamp equal those of the parsed record, for every shape of header")
  func equalsParsed() throws {
    for (index, record) in Self.records.enumerated() {
      let seq = UInt64(index * 997 + 1)
      let parts = try OpRecord.windowParts(payload: record.encoded(), seq: seq)
      let parsed = try OpRecord(payload: record.encoded())
      #expect(parts.key == OpRecord.key(client: record.client, id: record.id))
      #expect(parts.frame == parsed.applied(seq: seq), "\(String(decoding: parts.frame, as: UTF8.self))")
      #expect(parts.stamp == OpStamp(actor: parsed.actor, at: parsed.at))
      #expect(try OpRecord.appliedFrame(payload: record.encoded(), seq: seq) == parsed.applied(seq: seq))
    }
  }

  @Test("a header in another shape is parsed in full; a payload that is no record throws")
  func otherShapes() throws {
    // The same members with whitespace and in another order, as another writer might store them.
    let header = Array(#"{ "by":"s1", "op":{"kind":"move"} ,"client":"c-1","id":"7"}"#.utf8)
    let n = UInt32(header.count)
    let payload = [1, UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)] + header + [9]
    let parts = try OpRecord.windowParts(payload: payload, seq: 5)
    #expect(parts.key == OpRecord.key(client: "c-1", id: "7"))
    #expect(parts.frame == ServerMessage.applied(seq: 5, id: "7", by: "s1", op: .object([("kind", .string("move"))])))
    #expect(parts.stamp == OpStamp(actor: nil, at: nil))
    #expect(throws: (any Error).self) { try OpRecord.windowParts(payload: [1, 0, 0, 0, 9, 1], seq: 1) }
    #expect(throws: (any Error).self) { try OpRecord.windowParts(payload: [2], seq: 1) }
    #expect(throws: (any Error).self) { try OpRecord.appliedFrame(payload: [2], seq: 1) }
  }
}
