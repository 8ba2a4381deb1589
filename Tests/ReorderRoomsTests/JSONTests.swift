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
