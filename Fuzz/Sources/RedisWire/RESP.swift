import ReorderRedis

/// RESP2, the wire form of a Redis reply (what hiredis 0.14 reads off the socket and hands over as
/// a `redisReply`, which `RedisConnection` turns into a `RedisReply`), for the Redis fuzz target
/// and its seeds: `bytes(of:)` writes a reply as Redis sends it, `reply(from:)` reads one back.
public enum RESP {
  /// The deepest nesting `reply(from:)` reads: hiredis 0.14 refuses replies nested deeper than 7
  /// arrays (its reader's task stack holds 9 levels), so nothing deeper reaches a decoder.
  public static let maxDepth = 7

  /// The bytes Redis sends for `reply`.
  public static func bytes(of reply: RedisReply) -> [UInt8] {
    var out: [UInt8] = []
    write(reply, to: &out)
    return out
  }

  /// The one reply that `bytes` holds, exactly (nothing after it), or nil when they are not one
  /// RESP2 reply hiredis would read: a bad type byte, length or line end, a count or length that
  /// the remaining bytes cannot hold, nesting deeper than `maxDepth`.
  public static func reply(from bytes: [UInt8]) -> RedisReply? {
    var reader = Reader(bytes: bytes)
    guard let reply = reader.value(depth: 0), reader.index == bytes.count else { return nil }
    return reply
  }

  private static func write(_ reply: RedisReply, to out: inout [UInt8]) {
    func line(_ type: Character, _ text: String) {
      out.append(type.asciiValue!)
      out.append(contentsOf: text.utf8)
      out.append(contentsOf: [0x0D, 0x0A])
    }
    switch reply {
    case .status(let text): line("+", text)
    case .error(let text): line("-", text)
    case .integer(let value): line(":", String(value))
    case .null: line("$", "-1")
    case .bulk(let bytes):
      line("$", String(bytes.count))
      out.append(contentsOf: bytes)
      out.append(contentsOf: [0x0D, 0x0A])
    case .array(let elements):
      line("*", String(elements.count))
      for element in elements { write(element, to: &out) }
    }
  }

  private struct Reader {
    let bytes: [UInt8]
    var index = 0

    /// A line's text up to its CRLF (a status or error holds no CR or LF).
    mutating func line() -> [UInt8]? {
      let start = index
      while index < bytes.count, bytes[index] != 0x0D, bytes[index] != 0x0A { index += 1 }
      guard index + 1 < bytes.count, bytes[index] == 0x0D, bytes[index + 1] == 0x0A else { return nil }
      defer { index += 2 }
      return Array(bytes[start..<index])
    }

    /// A decimal line (`-` then digits, or digits), at most 18 digits.
    mutating func number() -> Int64? {
      guard let text = line(), !text.isEmpty, text.count <= 19 else { return nil }
      let negative = text[0] == UInt8(ascii: "-")
      let digits = negative ? text.dropFirst() : text[...]
      guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
      let magnitude = digits.reduce(Int64(0)) { $0 * 10 + Int64($1 - 0x30) }
      return negative ? -magnitude : magnitude
    }

    mutating func value(depth: Int) -> RedisReply? {
      guard depth <= RESP.maxDepth, index < bytes.count else { return nil }
      let type = bytes[index]
      index += 1
      switch type {
      case UInt8(ascii: "+"): return line().map { .status(String(decoding: $0, as: UTF8.self)) }
      case UInt8(ascii: "-"): return line().map { .error(String(decoding: $0, as: UTF8.self)) }
      case UInt8(ascii: ":"): return number().map { .integer($0) }
      case UInt8(ascii: "$"):
        guard let length = number() else { return nil }
        if length == -1 { return .null }
        guard length >= 0, length <= bytes.count - index - 2 else { return nil }
        let end = index + Int(length)
        guard bytes[end] == 0x0D, bytes[end + 1] == 0x0A else { return nil }
        defer { index = end + 2 }
        return .bulk(Array(bytes[index..<end]))
      case UInt8(ascii: "*"):
        guard let count = number() else { return nil }
        if count == -1 { return .null }
        // Every element takes at least 3 bytes (`:0` CRLF is the shortest).
        guard count >= 0, count <= (bytes.count - index) / 3 else { return nil }
        var elements: [RedisReply] = []
        elements.reserveCapacity(Int(count))
        for _ in 0..<count {
          guard let element = value(depth: depth + 1) else { return nil }
          elements.append(element)
        }
        return .array(elements)
      default:
        return nil
      }
    }
  }
}
