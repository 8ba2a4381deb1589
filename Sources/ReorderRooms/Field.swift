/// Typed access to the members of a client message, with protocol errors that name the field.
enum Field {
  static func value(_ v: JSONValue, _ name: String) throws(ProtocolError) -> JSONValue {
    guard let member = v[name], member != .null else { throw ProtocolError.missing(name) }
    return member
  }

  static func string(_ v: JSONValue, _ name: String) throws(ProtocolError) -> String {
    let member = try value(v, name)
    guard case .string(let s) = member else { throw ProtocolError.wrongType(name, expected: "a string", got: member) }
    return s
  }

  static func object(_ v: JSONValue, _ name: String) throws(ProtocolError) -> JSONValue {
    let member = try value(v, name)
    guard case .object = member else { throw ProtocolError.wrongType(name, expected: "an object", got: member) }
    return member
  }

  static func text(_ v: JSONValue, _ name: String, maxBytes: Int) throws(ProtocolError) -> String {
    let s = try string(v, name)
    guard s.utf8.count <= maxBytes else { throw ProtocolError.invalid(name, "must be at most \(maxBytes) bytes") }
    return s
  }

  /// An id: 1…128 UTF-8 bytes, no control characters.
  static func id(_ v: JSONValue, _ name: String) throws(ProtocolError) -> String {
    let s = try string(v, name)
    try checkID(s, name)
    return s
  }

  static func checkID(_ s: String, _ name: String) throws(ProtocolError) {
    guard !s.isEmpty, s.utf8.count <= WireLimits.maxIDBytes else {
      throw ProtocolError.invalid(name, "must be 1 to \(WireLimits.maxIDBytes) bytes")
    }
    guard !s.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
      throw ProtocolError.invalid(name, "must not contain control characters")
    }
  }

  /// An optional id: absent or `null` mean `nil`.
  static func optionalID(_ v: JSONValue, _ name: String, allowEmpty: Bool = false) throws(ProtocolError) -> String? {
    guard let member = v[name], member != .null else { return nil }
    guard case .string(let s) = member else { throw ProtocolError.wrongType(name, expected: "a string", got: member) }
    if allowEmpty && s.isEmpty { return s }
    try checkID(s, name)
    return s
  }

  static func optionalInt(_ v: JSONValue, _ name: String, range: ClosedRange<Int>) throws(ProtocolError) -> Int? {
    guard let member = v[name], member != .null else { return nil }
    guard case .number(let n) = member else { throw ProtocolError.wrongType(name, expected: "a number", got: member) }
    guard Int64(exactly: n) != nil, n >= Double(range.lowerBound), n <= Double(range.upperBound) else {
      throw ProtocolError.invalid(name, "must be an integer from \(range.lowerBound) to \(range.upperBound)")
    }
    return Int(n)
  }

  /// A pointer coordinate: any number within ±1,000,000 (0…1 inside the list's box).
  static func optionalCoordinate(_ v: JSONValue, _ name: String) throws(ProtocolError) -> Double? {
    guard let member = v[name], member != .null else { return nil }
    guard case .number(let n) = member else { throw ProtocolError.wrongType(name, expected: "a number", got: member) }
    guard abs(n) <= 1_000_000 else { throw ProtocolError.invalid(name, "must be within ±1000000") }
    return n
  }

  static func fieldValue(_ member: JSONValue, _ name: String) throws(ProtocolError) -> WireFieldValue {
    switch member {
    case .string(let s):
      guard s.utf8.count <= WireLimits.maxFieldValueBytes else {
        throw ProtocolError.invalid(name, "must be at most \(WireLimits.maxFieldValueBytes) bytes")
      }
      return .string(s)
    case .number(let n):
      guard n.isFinite, abs(n) <= WireLimits.maxFieldNumber else {
        throw ProtocolError.invalid(name, "must be a number within ±1e15")
      }
      return .number(n)
    case .bool(let b): return .bool(b)
    default: throw ProtocolError.wrongType(name, expected: "a string, number or boolean", got: member)
    }
  }

  /// A field name (`insert.fields` member names, `set.field`); `member` names the message field in errors.
  static func fieldName(_ name: String, _ member: String) throws(ProtocolError) {
    guard !name.isEmpty, name.utf8.count <= WireLimits.maxFieldNameBytes,
      !name.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F })
    else {
      let rule = "1 to \(WireLimits.maxFieldNameBytes) bytes without control characters"
      throw ProtocolError.invalid(member, member == "fields" ? "must have member names of \(rule)" : "must be \(rule)")
    }
  }

  static func isColorScalar(_ c: Unicode.Scalar) -> Bool {
    switch c {
    case "a"..."z", "A"..."Z", "0"..."9", "#", "(", ")", ",", ".", "%", " ", "-": return true
    default: return false
    }
  }
}
