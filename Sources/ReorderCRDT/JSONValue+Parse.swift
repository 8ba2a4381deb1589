extension JSONValue {
  /// Deepest nesting ``parse(_:)`` accepts.
  public static let maxDepth = 64

  /// Parses JSON text; throws ``BoardError/malformed(_:)`` saying what and where.
  /// - Complexity: O(length of the text).
  public static func parse(_ text: String) throws(BoardError) -> JSONValue {
    try parse(Array(text.utf8))
  }

  /// Parses UTF-8 JSON bytes.
  public static func parse(_ bytes: [UInt8]) throws(BoardError) -> JSONValue {
    var p = JSONParser(bytes: bytes)
    p.skipSpace()
    let value = try p.value(depth: 0)
    p.skipSpace()
    guard p.offset == bytes.count else { throw p.error("unexpected text after the JSON value") }
    return value
  }
}

/// Recursive-descent JSON parser over UTF-8 bytes.
struct JSONParser {
  let bytes: [UInt8]
  var offset = 0

  func error(_ what: String) -> BoardError { .malformed("JSON: \(what) at byte \(offset)") }

  mutating func skipSpace() {
    while offset < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[offset]) { offset += 1 }
  }

  mutating func value(depth: Int) throws(BoardError) -> JSONValue {
    guard depth < JSONValue.maxDepth else { throw error("nesting deeper than \(JSONValue.maxDepth)") }
    guard offset < bytes.count else { throw error("unexpected end") }
    switch bytes[offset] {
    case UInt8(ascii: "{"): return try object(depth: depth)
    case UInt8(ascii: "["): return try array(depth: depth)
    case UInt8(ascii: "\""): return .string(try string())
    case UInt8(ascii: "t"): try literal("true"); return .bool(true)
    case UInt8(ascii: "f"): try literal("false"); return .bool(false)
    case UInt8(ascii: "n"): try literal("null"); return .null
    default: return .number(try number())
    }
  }

  mutating func literal(_ word: String) throws(BoardError) {
    for b in word.utf8 {
      guard offset < bytes.count, bytes[offset] == b else { throw error("invalid literal") }
      offset += 1
    }
  }

  mutating func object(depth: Int) throws(BoardError) -> JSONValue {
    offset += 1
    var members: [String: JSONValue] = [:]
    skipSpace()
    if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
      offset += 1
      return .object(members)
    }
    while true {
      skipSpace()
      guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw error("expected a key") }
      let key = try string()
      skipSpace()
      guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else { throw error("expected ':'") }
      offset += 1
      skipSpace()
      members[key] = try value(depth: depth + 1)
      skipSpace()
      guard offset < bytes.count else { throw error("unterminated object") }
      if bytes[offset] == UInt8(ascii: ",") {
        offset += 1
        continue
      }
      guard bytes[offset] == UInt8(ascii: "}") else { throw error("expected ',' or '}'") }
      offset += 1
      return .object(members)
    }
  }

  mutating func array(depth: Int) throws(BoardError) -> JSONValue {
    offset += 1
    var items: [JSONValue] = []
    skipSpace()
    if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
      offset += 1
      return .array(items)
    }
    while true {
      skipSpace()
      items.append(try value(depth: depth + 1))
      skipSpace()
      guard offset < bytes.count else { throw error("unterminated array") }
      if bytes[offset] == UInt8(ascii: ",") {
        offset += 1
        continue
      }
      guard bytes[offset] == UInt8(ascii: "]") else { throw error("expected ',' or ']'") }
      offset += 1
      return .array(items)
    }
  }

  mutating func hex4() throws(BoardError) -> UInt32 {
    guard bytes.count - offset >= 4 else { throw error("short \\u escape") }
    var v: UInt32 = 0
    for _ in 0..<4 {
      let b = bytes[offset]
      offset += 1
      let d: UInt32
      switch b {
      case 48...57: d = UInt32(b - 48)
      case 65...70: d = UInt32(b - 55)
      case 97...102: d = UInt32(b - 87)
      default: throw error("bad hex digit in \\u escape")
      }
      v = v << 4 | d
    }
    return v
  }

  mutating func string() throws(BoardError) -> String {
    offset += 1
    var out: [UInt8] = []
    while true {
      guard offset < bytes.count else { throw error("unterminated string") }
      let b = bytes[offset]
      offset += 1
      switch b {
      case UInt8(ascii: "\""):
        guard let s = String(validating: out, as: UTF8.self) else { throw error("invalid UTF-8 in string") }
        return s
      case UInt8(ascii: "\\"):
        guard offset < bytes.count else { throw error("unterminated escape") }
        let e = bytes[offset]
        offset += 1
        switch e {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
          var scalar = try hex4()
          if scalar >= 0xD800 && scalar < 0xDC00 {
            guard bytes.count - offset >= 6, bytes[offset] == UInt8(ascii: "\\"),
              bytes[offset + 1] == UInt8(ascii: "u")
            else { throw error("lone surrogate") }
            offset += 2
            let low = try hex4()
            guard low >= 0xDC00 && low < 0xE000 else { throw error("bad surrogate pair") }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
          } else if scalar >= 0xDC00 && scalar < 0xE000 {
            throw error("lone surrogate")
          }
          guard let u = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
          out.append(contentsOf: Array(String(Character(u)).utf8))
        default: throw error("unknown escape")
        }
      case 0..<0x20: throw error("control character in string")
      default: out.append(b)
      }
    }
  }

  mutating func number() throws(BoardError) -> Double {
    let start = offset
    func digit(_ b: UInt8) -> Bool { b >= 48 && b <= 57 }
    if offset < bytes.count, bytes[offset] == UInt8(ascii: "-") { offset += 1 }
    guard offset < bytes.count, digit(bytes[offset]) else { throw error("invalid value") }
    if bytes[offset] == 48 {
      offset += 1
    } else {
      while offset < bytes.count, digit(bytes[offset]) { offset += 1 }
    }
    if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
      offset += 1
      guard offset < bytes.count, digit(bytes[offset]) else { throw error("digit expected after '.'") }
      while offset < bytes.count, digit(bytes[offset]) { offset += 1 }
    }
    if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
      offset += 1
      if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
        offset += 1
      }
      guard offset < bytes.count, digit(bytes[offset]) else { throw error("digit expected in exponent") }
      while offset < bytes.count, digit(bytes[offset]) { offset += 1 }
    }
    let text = String(decoding: bytes[start..<offset], as: UTF8.self)
    guard let d = Double(text), d.isFinite else { throw error("number out of range") }
    return d
  }
}
