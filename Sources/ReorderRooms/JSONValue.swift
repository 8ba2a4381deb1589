/// A parsed JSON value, as the wire protocol sees it.
///
/// Objects keep their members in document order (the writer emits them in that order, so frames
/// start with `"type"`); lookups are linear, which is faster than hashing for the handful of
/// members a protocol message has. The parser rejects duplicate member names.
public enum JSONValue: Sendable, Equatable {
  case null
  case bool(Bool)
  /// Always finite: the parser rejects numbers that overflow a `Double`.
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([(key: String, value: JSONValue)])

  /// The member named `key` of an object; `nil` for a missing member or a non-object.
  public subscript(key: String) -> JSONValue? {
    guard case .object(let members) = self else { return nil }
    for member in members where member.key == key { return member.value }
    return nil
  }

  /// The string payload, or `nil` for any other kind.
  public var stringValue: String? {
    if case .string(let s) = self { return s }
    return nil
  }

  /// The number payload, or `nil` for any other kind.
  public var numberValue: Double? {
    if case .number(let n) = self { return n }
    return nil
  }

  /// The members of an object, or `nil` for any other kind.
  public var objectMembers: [(key: String, value: JSONValue)]? {
    if case .object(let members) = self { return members }
    return nil
  }

  /// A short name of the kind, for error messages (`"a string"`, `"an object"`, …).
  public var kindDescription: String {
    switch self {
    case .null: return "null"
    case .bool: return "a boolean"
    case .number: return "a number"
    case .string: return "a string"
    case .array: return "an array"
    case .object: return "an object"
    }
  }

  public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
    switch (lhs, rhs) {
    case (.null, .null): return true
    case (.bool(let a), .bool(let b)): return a == b
    case (.number(let a), .number(let b)): return a == b
    case (.string(let a), .string(let b)): return a == b
    case (.array(let a), .array(let b)): return a == b
    case (.object(let a), .object(let b)):
      guard a.count == b.count else { return false }
      for (x, y) in zip(a, b) where x.key != y.key || x.value != y.value { return false }
      return true
    default: return false
    }
  }
}

extension JSONValue {
  /// An object from `(key, value)` pairs, skipping members whose value is `nil`.
  public static func members(_ pairs: KeyValuePairs<String, JSONValue?>) -> JSONValue {
    var out: [(key: String, value: JSONValue)] = []
    out.reserveCapacity(pairs.count)
    for (key, value) in pairs {
      if let value { out.append((key, value)) }
    }
    return .object(out)
  }

  /// A string value, or `null` for `nil`.
  public static func stringOrNull(_ s: String?) -> JSONValue {
    s.map { .string($0) } ?? .null
  }

  /// An integer-valued number.
  public static func int(_ n: Int) -> JSONValue { .number(Double(n)) }
}
