/// Cheap field extraction from the server's compact JSON frames, without building a tree.
///
/// The load tool receives hundreds of thousands of drag updates per second on one thread; it
/// only needs a few fields (`type`, each update's `t`, an `applied`'s `seq` and `id`), so it scans
/// for quoted keys. It assumes keys are not repeated inside string values, which holds for the
/// frames the tool provokes (its own names, ids and `t` values are plain ASCII words).
struct FrameScanner {
  let bytes: UnsafeBufferPointer<UInt8>

  static let quote = UInt8(ascii: "\"")
  static let colon = UInt8(ascii: ":")
  static let space = UInt8(ascii: " ")

  /// The position just after `"key":` (and any spaces) at or after `start`, or nil.
  ///
  /// - Complexity: O(n) in the bytes scanned.
  func valueStart(of key: StaticString, from start: Int = 0) -> Int? {
    let keyLength = key.utf8CodeUnitCount
    let keyBytes = key.utf8Start
    let count = bytes.count
    var index = start
    while index + keyLength + 2 < count {
      guard bytes[index] == Self.quote else {
        index += 1
        continue
      }
      var matches = true
      for offset in 0..<keyLength where bytes[index + 1 + offset] != keyBytes[offset] {
        matches = false
        break
      }
      if matches && bytes[index + 1 + keyLength] == Self.quote {
        var cursor = index + 2 + keyLength
        while cursor < count && bytes[cursor] == Self.space { cursor += 1 }
        if cursor < count && bytes[cursor] == Self.colon {
          cursor += 1
          while cursor < count && bytes[cursor] == Self.space { cursor += 1 }
          return cursor
        }
      }
      index += 1
    }
    return nil
  }

  /// The string starting at `position` (which must be a quote), without unescaping, as a range.
  func stringRange(at position: Int) -> Range<Int>? {
    guard position < bytes.count, bytes[position] == Self.quote else { return nil }
    var end = position + 1
    while end < bytes.count && bytes[end] != Self.quote {
      if bytes[end] == UInt8(ascii: "\\") { end += 1 }
      end += 1
    }
    guard end < bytes.count else { return nil }
    return (position + 1)..<end
  }

  /// The string value of `key` (no unescaping), or nil.
  func string(_ key: StaticString, from start: Int = 0) -> String? {
    guard let position = valueStart(of: key, from: start), let range = stringRange(at: position) else { return nil }
    return String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
  }

  /// True when the string value of `key` equals `expected`.
  func stringEquals(_ key: StaticString, _ expected: StaticString, from start: Int = 0) -> Bool {
    guard let position = valueStart(of: key, from: start), let range = stringRange(at: position) else { return false }
    guard range.count == expected.utf8CodeUnitCount else { return false }
    let expectedBytes = expected.utf8Start
    for offset in 0..<range.count where bytes[range.lowerBound + offset] != expectedBytes[offset] { return false }
    return true
  }

  /// A non-negative integer at `position` and the position after it.
  func integer(at position: Int) -> (value: Int64, end: Int)? {
    var cursor = position
    var value: Int64 = 0
    var digits = 0
    while cursor < bytes.count, bytes[cursor] >= 48, bytes[cursor] <= 57 {
      value = value &* 10 &+ Int64(bytes[cursor] &- 48)
      cursor += 1
      digits += 1
    }
    return digits == 0 ? nil : (value, cursor)
  }

  /// The integer value of `key`, or nil.
  func integer(_ key: StaticString, from start: Int = 0) -> Int64? {
    guard let position = valueStart(of: key, from: start) else { return nil }
    return integer(at: position)?.value
  }

  /// Calls `body` with every `t` value of the form `"<drag>.<seq>.<sent µs>"` at or after `start`.
  func forEachDragStamp(from start: Int = 0, _ body: (DragStamp) -> Void) {
    var cursor = start
    while let position = valueStart(of: "t", from: cursor) {
      cursor = position
      if let (stamp, end) = dragStamp(at: position) {
        body(stamp)
        cursor = end
      }
    }
  }

  /// Parses `"<drag>.<seq>.<sent µs>"` at `position`.
  func dragStamp(at position: Int) -> (DragStamp, Int)? {
    guard position < bytes.count, bytes[position] == Self.quote else { return nil }
    guard let (drag, afterDrag) = integer(at: position + 1), afterDrag < bytes.count,
      bytes[afterDrag] == UInt8(ascii: "."),
      let (seq, afterSeq) = integer(at: afterDrag + 1), afterSeq < bytes.count,
      bytes[afterSeq] == UInt8(ascii: "."),
      let (sent, afterSent) = integer(at: afterSeq + 1), afterSent < bytes.count,
      bytes[afterSent] == Self.quote
    else { return nil }
    return (DragStamp(drag: Int(drag), seq: Int32(truncatingIfNeeded: seq), sent: sent), afterSent + 1)
  }
}

/// What the tool puts in a drag update's opaque `t`: which drag, which update, when it was sent.
struct DragStamp: Equatable {
  var drag: Int
  var seq: Int32
  var sent: Int64

  /// The `t` string: `"<drag>.<seq>.<sent µs>"`.
  var text: String { "\(drag).\(seq).\(sent)" }
}

/// A committed move's op id carries its sender and send time: `"m<client>.<n>.<sent µs>"`.
struct MoveStamp: Equatable {
  var client: Int
  var number: Int
  var sent: Int64

  /// The op id.
  var text: String { "m\(client).\(number).\(sent)" }

  /// Parses an op id made by `text`.
  init?(_ id: String) {
    guard id.hasPrefix("m") else { return nil }
    let parts = id.dropFirst().split(separator: ".")
    guard parts.count == 3, let client = Int(parts[0]), let number = Int(parts[1]), let sent = Int64(parts[2])
    else { return nil }
    self.init(client: client, number: number, sent: sent)
  }

  init(client: Int, number: Int, sent: Int64) {
    self.client = client
    self.number = number
    self.sent = sent
  }
}
