extension JSONValue {
  /// The compact JSON text of this value, as UTF-8 bytes.
  /// - Complexity: O(n) in the size of the output.
  public func encoded() -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(128)
    write(to: &out)
    return out
  }

  /// The compact JSON text of this value.
  public var jsonText: String { String(decoding: encoded(), as: UTF8.self) }

  /// Appends the compact JSON text of this value to `out`.
  public func write(to out: inout [UInt8]) {
    switch self {
    case .null: out.append(contentsOf: "null".utf8)
    case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
    case .number(let n): JSONValue.writeNumber(n, to: &out)
    case .string(let s): JSONValue.writeString(s, to: &out)
    case .array(let elements):
      out.append(UInt8(ascii: "["))
      for (i, element) in elements.enumerated() {
        if i > 0 { out.append(UInt8(ascii: ",")) }
        element.write(to: &out)
      }
      out.append(UInt8(ascii: "]"))
    case .object(let members):
      out.append(UInt8(ascii: "{"))
      for (i, member) in members.enumerated() {
        if i > 0 { out.append(UInt8(ascii: ",")) }
        JSONValue.writeString(member.key, to: &out)
        out.append(UInt8(ascii: ":"))
        member.value.write(to: &out)
      }
      out.append(UInt8(ascii: "}"))
    }
  }

  /// Integral values within ±2^53 are written without a fraction; others in Swift's shortest
  /// round-trip form. Non-finite values (never produced by the parser) are written as `null`.
  static func writeNumber(_ n: Double, to out: inout [UInt8]) {
    guard n.isFinite else {
      out.append(contentsOf: "null".utf8)
      return
    }
    if abs(n) < 9_007_199_254_740_992, Int64(exactly: n) != nil {
      out.append(contentsOf: String(Int64(n)).utf8)
    } else {
      out.append(contentsOf: n.description.utf8)
    }
  }

  /// Bytes that a JSON string cannot hold as they are: controls, `"` and `\`.
  private static func needsEscape(_ b: UInt8) -> Bool { b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") }

  /// Writes `s` as a JSON string: its UTF-8 as it is (one copy when nothing needs escaping), with
  /// `"`, `\` and controls escaped.
  static func writeString(_ s: String, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    var s = s
    s.withUTF8 { bytes in
      var start = 0
      for (index, b) in bytes.enumerated() where needsEscape(b) {
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
        writeEscape(b, to: &out)
        start = index + 1
      }
      out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
    }
    out.append(UInt8(ascii: "\""))
  }

  private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

  private static func writeEscape(_ b: UInt8, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "\\"))
    switch b {
    case UInt8(ascii: "\""): out.append(UInt8(ascii: "\""))
    case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
    case 0x0A: out.append(UInt8(ascii: "n"))
    case 0x0D: out.append(UInt8(ascii: "r"))
    case 0x09: out.append(UInt8(ascii: "t"))
    default:
      out.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
      out.append(hexDigits[Int(b >> 4)])
      out.append(hexDigits[Int(b & 0xF)])
    }
  }
}
