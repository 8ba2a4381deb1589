/// A minimal JSON value (the CRDT imports nothing, so it brings its own).
///
/// Objects keep keys in a dictionary and serialize them sorted, so output is deterministic.
/// Numbers are `Double`; integers up to 2^53 round-trip exactly. Use ``parse(_:)`` and
/// ``serialized()``.
public enum JSONValue: Hashable, Sendable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  /// The member of an object, or nil.
  public subscript(key: String) -> JSONValue? {
    if case .object(let members) = self { return members[key] }
    return nil
  }

  /// The string, if this is one.
  public var stringValue: String? {
    if case .string(let s) = self { return s }
    return nil
  }

  /// The number, if this is one.
  public var numberValue: Double? {
    if case .number(let d) = self { return d }
    return nil
  }

  /// The bool, if this is one.
  public var boolValue: Bool? {
    if case .bool(let b) = self { return b }
    return nil
  }

  /// Compact JSON text (no spaces; object keys sorted).
  /// - Complexity: O(size of the value).
  public func serialized() -> String {
    var out: [UInt8] = []
    write(into: &out)
    return String(decoding: out, as: UTF8.self)
  }

  /// Compact JSON as UTF-8 bytes.
  public func serializedBytes() -> [UInt8] {
    var out: [UInt8] = []
    write(into: &out)
    return out
  }

  func write(into out: inout [UInt8]) {
    switch self {
    case .null: out.append(contentsOf: "null".utf8)
    case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
    case .number(let d): out.append(contentsOf: JSONValue.format(d).utf8)
    case .string(let s): JSONValue.writeString(s, into: &out)
    case .array(let items):
      out.append(UInt8(ascii: "["))
      for (i, item) in items.enumerated() {
        if i > 0 { out.append(UInt8(ascii: ",")) }
        item.write(into: &out)
      }
      out.append(UInt8(ascii: "]"))
    case .object(let members):
      out.append(UInt8(ascii: "{"))
      for (i, key) in members.keys.sorted().enumerated() {
        if i > 0 { out.append(UInt8(ascii: ",")) }
        JSONValue.writeString(key, into: &out)
        out.append(UInt8(ascii: ":"))
        members[key]!.write(into: &out)
      }
      out.append(UInt8(ascii: "}"))
    }
  }

  /// Integers print without a fraction; non-finite numbers (not JSON) print as `null`.
  static func format(_ d: Double) -> String {
    guard d.isFinite else { return "null" }
    if let n = exactInteger(d) { return String(n) }
    return "\(d)"
  }

  /// The integer equal to `d` when |d| < 2^53 (without libm: the CRDT links nothing).
  static func exactInteger(_ d: Double) -> Int64? {
    guard d.magnitude < 9_007_199_254_740_992 else { return nil }
    let n = Int64(d)
    return Double(n) == d && !(d == 0 && d.sign == .minus) ? n : nil
  }

  static func writeString(_ s: String, into out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    for byte in s.utf8 {
      switch byte {
      case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
      case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
      case 0x0A: out.append(contentsOf: "\\n".utf8)
      case 0x0D: out.append(contentsOf: "\\r".utf8)
      case 0x09: out.append(contentsOf: "\\t".utf8)
      case 0..<0x20:
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        out.append(contentsOf: "\\u00".utf8)
        out.append(hex[Int(byte >> 4)])
        out.append(hex[Int(byte & 0xF)])
      default: out.append(byte)
      }
    }
    out.append(UInt8(ascii: "\""))
  }
}
