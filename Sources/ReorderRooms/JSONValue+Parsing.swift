/// Why a frame is not acceptable JSON. The message never echoes the input back.
public struct JSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What went wrong, for the `error` frame.
  public var message: String
  /// Byte offset where it went wrong.
  public var offset: Int
  public var description: String { "\(message) at byte \(offset)" }
}

extension JSONValue {
  /// Deepest nesting of arrays and objects the parser accepts.
  public static let defaultMaxDepth = 32

  /// Parses one JSON document (RFC 8259) from UTF-8 bytes.
  ///
  /// Robust to hostile input: nesting is bounded by `maxDepth` (no stack overflow), numbers that do
  /// not fit a finite `Double` are rejected, strings must be valid UTF-8 with valid escapes,
  /// duplicate object members and trailing bytes are rejected.
  /// - Complexity: O(n) in the number of bytes.
  public static func parse(_ bytes: [UInt8], maxDepth: Int = defaultMaxDepth) throws(JSONParseError) -> JSONValue {
    var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
    parser.skipWhitespace()
    let value = try parser.parseValue(depth: 0)
    parser.skipWhitespace()
    guard parser.index == bytes.count else { throw parser.fail("unexpected bytes after the JSON value") }
    return value
  }

  /// Parses a JSON document from a string.
  public static func parse(_ text: String, maxDepth: Int = defaultMaxDepth) throws(JSONParseError) -> JSONValue {
    try parse(Array(text.utf8), maxDepth: maxDepth)
  }
}

/// A recursive-descent parser over a byte array; recursion depth is bounded by `maxDepth`.
struct JSONParser {
  let bytes: [UInt8]
  let maxDepth: Int
  var index = 0

  init(bytes: [UInt8], maxDepth: Int) {
    self.bytes = bytes
    self.maxDepth = maxDepth
  }

  func fail(_ message: String) -> JSONParseError { JSONParseError(message: message, offset: index) }

  mutating func skipWhitespace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x09, 0x0A, 0x0D: index += 1
      default: return
      }
    }
  }

  mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
    guard index < bytes.count else { throw fail("unexpected end of input") }
    switch bytes[index] {
    case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
    case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
    case UInt8(ascii: "\""): return .string(try parseString())
    case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
    case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
    case UInt8(ascii: "n"): try expectLiteral("null"); return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
    default: throw fail("unexpected character")
    }
  }

  mutating func expectLiteral(_ literal: String) throws(JSONParseError) {
    for expected in literal.utf8 {
      guard index < bytes.count else { throw fail("unexpected end of input") }
      guard bytes[index] == expected else { throw fail("invalid literal") }
      index += 1
    }
  }

  mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
    guard depth <= maxDepth else { throw fail("nesting deeper than \(maxDepth) levels") }
    index += 1
    var members: [(key: String, value: JSONValue)] = []
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
      index += 1
      return .object(members)
    }
    while true {
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
      let key = try parseString()
      for member in members where member.key == key { throw fail("duplicate member name") }
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
      index += 1
      skipWhitespace()
      let value = try parseValue(depth: depth)
      members.append((key, value))
      skipWhitespace()
      guard index < bytes.count else { throw fail("unexpected end of input") }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
      } else if bytes[index] == UInt8(ascii: "}") {
        index += 1
        return .object(members)
      } else {
        throw fail("expected ',' or '}'")
      }
    }
  }

  mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
    guard depth <= maxDepth else { throw fail("nesting deeper than \(maxDepth) levels") }
    index += 1
    var elements: [JSONValue] = []
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
      index += 1
      return .array(elements)
    }
    while true {
      skipWhitespace()
      elements.append(try parseValue(depth: depth))
      skipWhitespace()
      guard index < bytes.count else { throw fail("unexpected end of input") }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
      } else if bytes[index] == UInt8(ascii: "]") {
        index += 1
        return .array(elements)
      } else {
        throw fail("expected ',' or ']'")
      }
    }
  }

  mutating func parseNumber() throws(JSONParseError) -> Double {
    let start = index
    if bytes[index] == UInt8(ascii: "-") { index += 1 }
    guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number") }
    if bytes[index] == UInt8(ascii: "0") {
      index += 1
    } else {
      while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
      index += 1
      guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number") }
      while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
      index += 1
      if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
      guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number") }
      while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }
    guard index - start <= 512 else { throw fail("number literal longer than 512 characters") }
    let text = String(decoding: bytes[start..<index], as: UTF8.self)
    guard let value = Double(text), value.isFinite else { throw fail("number out of range") }
    return value
  }

  func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

  mutating func parseString() throws(JSONParseError) -> String {
    index += 1  // opening quote
    let start = index
    // Fast path: no escapes.
    while index < bytes.count {
      let b = bytes[index]
      if b == UInt8(ascii: "\"") {
        guard let s = String(validating: bytes[start..<index], as: UTF8.self) else {
          throw fail("string is not valid UTF-8")
        }
        index += 1
        return s
      }
      if b == UInt8(ascii: "\\") { break }
      if b < 0x20 { throw fail("control character in string") }
      index += 1
    }
    var buffer = Array(bytes[start..<index])
    while index < bytes.count {
      let b = bytes[index]
      if b == UInt8(ascii: "\"") {
        guard let s = String(validating: buffer, as: UTF8.self) else { throw fail("string is not valid UTF-8") }
        index += 1
        return s
      }
      if b < 0x20 { throw fail("control character in string") }
      if b != UInt8(ascii: "\\") {
        buffer.append(b)
        index += 1
        continue
      }
      index += 1
      guard index < bytes.count else { break }
      let e = bytes[index]
      index += 1
      switch e {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(e)
      case UInt8(ascii: "b"): buffer.append(0x08)
      case UInt8(ascii: "f"): buffer.append(0x0C)
      case UInt8(ascii: "n"): buffer.append(0x0A)
      case UInt8(ascii: "r"): buffer.append(0x0D)
      case UInt8(ascii: "t"): buffer.append(0x09)
      case UInt8(ascii: "u"):
        var scalar = try parseHex4()
        if scalar >= 0xD800 && scalar < 0xDC00 {
          guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
          else { throw fail("unpaired surrogate escape") }
          index += 2
          let low = try parseHex4()
          guard low >= 0xDC00 && low < 0xE000 else { throw fail("unpaired surrogate escape") }
          scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        } else if scalar >= 0xDC00 && scalar < 0xE000 {
          throw fail("unpaired surrogate escape")
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw fail("invalid escape") }
        buffer.append(contentsOf: Array(String(Character(unicode)).utf8))
      default: throw fail("invalid escape")
      }
    }
    throw fail("unterminated string")
  }

  mutating func parseHex4() throws(JSONParseError) -> UInt32 {
    guard index + 4 <= bytes.count else { throw fail("invalid \\u escape") }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let b = bytes[index]
      let digit: UInt32
      switch b {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - UInt8(ascii: "0"))
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - UInt8(ascii: "a") + 10)
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - UInt8(ascii: "A") + 10)
      default: throw fail("invalid \\u escape")
      }
      value = value << 4 | digit
      index += 1
    }
    return value
  }
}
