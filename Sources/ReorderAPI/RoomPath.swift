/// The room of a websocket path `/ws/<room>`: validated after the transport's one percent-decoding.
public enum RoomPath {
  /// Longest accepted room name, in characters.
  public static let maxLength = 64

  /// Why a path was refused; `reason` is the websocket close reason a client sees (≤ 123 bytes).
  public enum Refusal: Error, Equatable {
    case notAWebSocketPath
    case empty
    case tooLong(Int)
    case invalidCharacter

    /// The close reason a client sees (at most 123 bytes).
    public var reason: String {
      switch self {
      case .notAWebSocketPath: "invalid room name: websocket path must be /ws/<room>"
      case .empty: "invalid room name: empty (use 1-64 of A-Z a-z 0-9 - _ .)"
      case .tooLong(let count): "invalid room name: \(count) characters (at most 64)"
      case .invalidCharacter: "invalid room name: only A-Z a-z 0-9 - _ . are allowed"
      }
    }
  }

  /// Extracts and validates the room of `path`, the request path as lws hands it over: already
  /// percent-decoded once (and without the query string).
  ///
  /// It is NOT decoded again: a `%` left after lws' decoding (a double-encoded name such as
  /// `%2541`) is refused like any other character outside the allowed set.
  public static func parse(decodedPath path: String) -> Result<String, Refusal> {
    let prefix = "/ws/"
    guard path.hasPrefix(prefix) else { return .failure(.notAWebSocketPath) }
    return validate(Array(path.utf8.dropFirst(prefix.utf8.count)))
  }

  /// Checks an already decoded name: 1–64 characters of `[A-Za-z0-9._-]`.
  public static func validate(_ bytes: [UInt8]) -> Result<String, Refusal> {
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
}
