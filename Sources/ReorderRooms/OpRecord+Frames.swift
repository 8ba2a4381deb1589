extension OpRecord {
  /// The parts of a stored payload a load needs for an op of the catch-up window — its idempotency
  /// key, its `applied` frame and its stamp (who made it, when: the history's) — taken from the
  /// header's bytes without building the other values: a load of a
  /// large room keeps the frames of its whole catch-up window (1,000 ops), and parsing each
  /// header into values and writing them out again would be most of that load.
  ///
  /// The frame equals `OpRecord(payload:).applied(seq:)`: the header is compact JSON written by
  /// `JSONValue` (`encoded()`), whose output parses and writes back to the same bytes, so the
  /// `id`, `by` and `op` values are copied as they are. A header that is not in that shape (a
  /// string with escapes in the id or client, whitespace, a missing member) is parsed in full.
  /// - Throws: `BoardDataError` when the payload is not an op record.
  public static func windowParts(payload: [UInt8], seq: UInt64) throws -> (
    key: String, frame: [UInt8], stamp: OpStamp
  ) {
    if let header = HeaderSlices(payload: payload), let id = header.plainString(header.id),
      let client = header.plainString(header.client)
    {
      return (key(client: client, id: id), header.appliedFrame(seq: seq), header.stamp())
    }
    let record = try OpRecord(payload: payload)
    return (
      key(client: record.client, id: record.id), record.applied(seq: seq), OpStamp(actor: record.actor, at: record.at)
    )
  }

  /// The `applied` frame alone, as `windowParts` makes it (catch-up reads from the store).
  /// - Throws: `BoardDataError` when the payload is not an op record.
  public static func appliedFrame(payload: [UInt8], seq: UInt64) throws -> [UInt8] {
    if let header = HeaderSlices(payload: payload) { return header.appliedFrame(seq: seq) }
    return try OpRecord(payload: payload).applied(seq: seq)
  }
}

/// Where the members of a stored header sit in its payload: the byte ranges of the JSON values of
/// `id`, `client`, `by`, `op`, `actor` and `at` (quotes included for strings). Built by skipping values, not
/// parsing them; nil when the header is not compact JSON of that shape.
private struct HeaderSlices {
  let payload: [UInt8]
  var id = 0..<0
  var client = 0..<0
  var by = 0..<0
  var op = 0..<0
  var actor = 0..<0
  var at = 0..<0

  init?(payload: [UInt8]) {
    self.payload = payload
    guard payload.count >= 5, payload[0] == 1 else { return nil }
    let n = Int(payload[1]) << 24 | Int(payload[2]) << 16 | Int(payload[3]) << 8 | Int(payload[4])
    let end = 5 + n
    guard end <= payload.count, n >= 2, payload[5] == UInt8(ascii: "{"), payload[end - 1] == UInt8(ascii: "}")
    else { return nil }
    var index = 6
    while index < end - 1 {
      guard let key = Self.skipString(payload, from: index, end: end), key.upperBound < end,
        payload[key.upperBound] == UInt8(ascii: ":"),
        let value = Self.skipValue(payload, from: key.upperBound + 1, end: end - 1)
      else { return nil }
      if Self.equals(payload, key, "id") {
        id = value
      } else if Self.equals(payload, key, "client") {
        client = value
      } else if Self.equals(payload, key, "by") {
        by = value
      } else if Self.equals(payload, key, "op") {
        op = value
      } else if Self.equals(payload, key, "actor") {
        actor = value
      } else if Self.equals(payload, key, "at") {
        at = value
      }
      index = value.upperBound
      if index < end - 1 {
        guard payload[index] == UInt8(ascii: ",") else { return nil }
        index += 1
      }
    }
    let quote = UInt8(ascii: "\"")
    let strings = [id, client, by].allSatisfy { !$0.isEmpty && payload[$0.lowerBound] == quote }
    guard index == end - 1, !op.isEmpty, strings else { return nil }
  }

  /// `{"type":"applied","seq":…,"id":…,"by":…,"op":…}` with the header's values as they are.
  func appliedFrame(seq: UInt64) -> [UInt8] {
    var frame: [UInt8] = []
    frame.reserveCapacity(40 + id.count + by.count + op.count)
    frame.append(contentsOf: #"{"type":"applied","seq":"#.utf8)
    JSONValue.writeNumber(Double(seq), to: &frame)
    frame.append(contentsOf: #","id":"#.utf8)
    frame.append(contentsOf: payload[id])
    frame.append(contentsOf: #","by":"#.utf8)
    frame.append(contentsOf: payload[by])
    frame.append(contentsOf: #","op":"#.utf8)
    frame.append(contentsOf: payload[op])
    frame.append(UInt8(ascii: "}"))
    return frame
  }

  /// Who made the op and when, read as `OpRecord(payload:)` reads them (the two values are parsed;
  /// a value it would not take is nil).
  func stamp() -> OpStamp {
    let actor =
      self.actor.isEmpty ? nil : (try? JSONValue.parse(Array(payload[self.actor]))).flatMap(OpActor.init(json:))
    var at: Int64?
    if !self.at.isEmpty, case .number(let ms)? = try? JSONValue.parse(Array(payload[self.at])), ms.isFinite,
      abs(ms) < 1e15
    {
      at = Int64(ms)
    }
    return OpStamp(actor: actor, at: at)
  }

  /// The text of the JSON string at `range` when it has no escapes, else nil.
  func plainString(_ range: Range<Int>) -> String? {
    let inner = payload[(range.lowerBound + 1)..<(range.upperBound - 1)]
    guard !inner.contains(UInt8(ascii: "\\")) else { return nil }
    return String(decoding: inner, as: UTF8.self)
  }

  /// Whether the string at `key` (quotes included, no escapes) is `name`.
  private static func equals(_ bytes: [UInt8], _ key: Range<Int>, _ name: String) -> Bool {
    bytes[(key.lowerBound + 1)..<(key.upperBound - 1)].elementsEqual(name.utf8)
  }

  /// The range of the string starting at `from` (its quotes included).
  private static func skipString(_ bytes: [UInt8], from: Int, end: Int) -> Range<Int>? {
    guard from < end, bytes[from] == UInt8(ascii: "\"") else { return nil }
    var index = from + 1
    while index < end {
      switch bytes[index] {
      case UInt8(ascii: "\""): return from..<(index + 1)
      case UInt8(ascii: "\\"): index += 2
      default: index += 1
      }
    }
    return nil
  }

  /// The range of the value starting at `from`: a string, an object or array (strings inside
  /// skipped whole), or a scalar up to the next `,` `}` `]`. No whitespace is allowed (the writer
  /// writes none).
  private static func skipValue(_ bytes: [UInt8], from: Int, end: Int) -> Range<Int>? {
    guard from < end else { return nil }
    switch bytes[from] {
    case UInt8(ascii: "\""):
      return skipString(bytes, from: from, end: end)
    case UInt8(ascii: "{"), UInt8(ascii: "["):
      var depth = 0
      var index = from
      while index < end {
        switch bytes[index] {
        case UInt8(ascii: "\""):
          guard let string = skipString(bytes, from: index, end: end) else { return nil }
          index = string.upperBound
          continue
        case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
          depth -= 1
          if depth == 0 { return from..<(index + 1) }
        case UInt8(ascii: " "), 0x0A, 0x0D, 0x09: return nil
        default: break
        }
        index += 1
      }
      return nil
    default:
      var index = from
      while index < end, bytes[index] != UInt8(ascii: ","), bytes[index] != UInt8(ascii: "}"),
        bytes[index] != UInt8(ascii: "]")
      {
        guard bytes[index] > 0x20 else { return nil }
        index += 1
      }
      return index > from ? from..<index : nil
    }
  }
}
