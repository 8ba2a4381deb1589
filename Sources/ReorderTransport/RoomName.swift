/// The room part of a websocket path `/ws/<room>`: parsed, percent-decoded once, validated.
enum RoomName {
  /// Longest accepted room name, in characters.
  static let maxLength = 64

  /// Why a path was refused; `reason` is the websocket close reason a client sees (≤ 123 bytes).
  enum Refusal: Error, Equatable {
    case notAWebSocketPath
    case malformedEncoding
    case empty
    case tooLong(Int)
    case invalidCharacter

    var reason: String {
      switch self {
      case .notAWebSocketPath: "invalid room name: websocket path must be /ws/<room>"
      case .malformedEncoding: "invalid room name: malformed percent-encoding"
      case .empty: "invalid room name: empty (use 1-64 of A-Z a-z 0-9 - _ .)"
      case .tooLong(let count): "invalid room name: \(count) characters (at most 64)"
      case .invalidCharacter: "invalid room name: only A-Z a-z 0-9 - _ . are allowed"
      }
    }
  }

  /// Extracts and validates the room of `path` (the request path, without the query string).
  ///
  /// `path` is decoded exactly once here; a `%` left after decoding is refused like any other
  /// character outside the allowed set, so double-encoded names never pass.
  static func parse(path: String) -> Result<String, Refusal> {
    let prefix = "/ws/"
    guard path.hasPrefix(prefix) else { return .failure(.notAWebSocketPath) }
    guard let decoded = percentDecode(Array(path.utf8.dropFirst(prefix.utf8.count))) else {
      return .failure(.malformedEncoding)
    }
    return validate(decoded)
  }

  /// Checks an already decoded name: 1–64 characters of `[A-Za-z0-9._-]`.
  static func validate(_ bytes: [UInt8]) -> Result<String, Refusal> {
    if bytes.isEmpty { return .failure(.empty) }
    guard bytes.allSatisfy(isAllowed) else { return .failure(.invalidCharacter) }
    if bytes.count > maxLength { return .failure(.tooLong(bytes.count)) }
    return .success(String(decoding: bytes, as: UTF8.self))
  }

  private static func isAllowed(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
      true
    default:
      false
    }
  }

  /// Decodes `%XX` escapes once; nil when an escape is truncated or not hexadecimal.
  static func percentDecode(_ bytes: [UInt8]) -> [UInt8]? {
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var index = 0
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "%") {
        guard index + 2 < bytes.count,
          let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
        else { return nil }
        out.append(high << 4 | low)
        index += 3
      } else {
        out.append(byte)
        index += 1
      }
    }
    return out
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
