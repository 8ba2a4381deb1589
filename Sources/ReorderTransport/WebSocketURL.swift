/// A parsed `ws://` or `wss://` URL (or, with other `schemes`, `http://` or `https://`); the path
/// (with its query) is kept exactly as written (no normalisation), so tests can send raw, encoded
/// or hostile paths.
public struct WebSocketURL: Equatable, Sendable {
  /// `wss://` (or `https://`).
  public let secure: Bool
  /// The host, without the brackets of an IPv6 address.
  public let host: String
  /// The port given, or the scheme's default.
  public let port: Int
  /// The path with its query, `/` when none.
  public let path: String

  /// The schemes of websocket URLs: plain, secure.
  public static let websocketSchemes = (plain: "ws://", secure: "wss://")
  /// The schemes of HTTP URLs (`HTTPClient`).
  static let httpSchemes = (plain: "http://", secure: "https://")

  /// Parses `text`; nil when it is not a URL of `schemes` with a host and a valid port.
  public init?(_ text: String, schemes: (plain: String, secure: String) = websocketSchemes) {
    let rest: Substring
    if text.hasPrefix(schemes.plain) {
      secure = false
      rest = text.dropFirst(schemes.plain.count)
    } else if text.hasPrefix(schemes.secure) {
      secure = true
      rest = text.dropFirst(schemes.secure.count)
    } else {
      return nil
    }
    let slash = rest.firstIndex(of: "/") ?? rest.endIndex
    let authority = rest[..<slash]
    path = slash == rest.endIndex ? "/" : String(rest[slash...])
    if authority.hasPrefix("[") {  // [IPv6]:port
      guard let close = authority.firstIndex(of: "]") else { return nil }
      host = String(authority[authority.index(after: authority.startIndex)..<close])
      let after = authority[authority.index(after: close)...]
      guard let port = Self.port(after, secure: secure) else { return nil }
      self.port = port
    } else if let colon = authority.lastIndex(of: ":") {
      host = String(authority[..<colon])
      guard let port = Self.port(authority[colon...], secure: secure) else { return nil }
      self.port = port
    } else {
      host = String(authority)
      port = secure ? 443 : 80
    }
    if host.isEmpty { return nil }
  }

  /// `:1234` → 1234; empty → the scheme's default; anything else → nil.
  private static func port(_ text: Substring, secure: Bool) -> Int? {
    if text.isEmpty { return secure ? 443 : 80 }
    guard text.first == ":", let port = Int(text.dropFirst()), (1...65_535).contains(port) else { return nil }
    return port
  }
}
