import Foundation

/// The server a run talks to: scheme, host and port parsed from `ws://HOST:PORT`.
public struct LoadTarget: Sendable, Equatable {
  /// `ws` or `wss`.
  public var scheme: String
  /// Host name or address literal (IPv6 without brackets).
  public var host: String
  /// TCP port.
  public var port: Int

  /// Parses `ws://HOST:PORT[/…]`, `wss://…` or `http(s)://…` (mapped to ws/wss).
  ///
  /// - Throws: `LoadError.invalidURL` when the scheme, host or port is missing or malformed.
  public init(url: String) throws {
    guard let separator = url.range(of: "://") else { throw LoadError.invalidURL(url) }
    let rawScheme = url[..<separator.lowerBound].lowercased()
    switch rawScheme {
    case "ws", "http": scheme = "ws"
    case "wss", "https": scheme = "wss"
    default: throw LoadError.invalidURL(url)
    }
    var rest = Substring(url[separator.upperBound...])
    if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
    let defaultPort = scheme == "wss" ? 443 : 80
    if rest.hasPrefix("[") {
      guard let close = rest.firstIndex(of: "]") else { throw LoadError.invalidURL(url) }
      host = String(rest[rest.index(after: rest.startIndex)..<close])
      let after = rest[rest.index(after: close)...]
      if after.isEmpty {
        port = defaultPort
      } else {
        guard after.hasPrefix(":"), let value = Int(after.dropFirst()) else { throw LoadError.invalidURL(url) }
        port = value
      }
    } else if let colon = rest.lastIndex(of: ":") {
      host = String(rest[..<colon])
      guard let value = Int(rest[rest.index(after: colon)...]) else { throw LoadError.invalidURL(url) }
      port = value
    } else {
      host = String(rest)
      port = defaultPort
    }
    guard !host.isEmpty, (1...65_535).contains(port) else { throw LoadError.invalidURL(url) }
  }

  /// Parses `--url`: one URL, or a comma list of node URLs of one cluster (spaces around the
  /// commas are ignored). The same URL may appear twice (two shares of one node).
  ///
  /// - Throws: `LoadError.invalidURL` for an empty entry or one `init(url:)` refuses.
  public static func list(_ text: String) throws -> [LoadTarget] {
    let entries = text.split(separator: ",", omittingEmptySubsequences: false).map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    return try entries.map { entry in
      guard !entry.isEmpty else { throw LoadError.invalidURL(text) }
      return try LoadTarget(url: entry)
    }
  }

  /// `scheme://host:port` with IPv6 literals bracketed.
  public var origin: String {
    let shownHost = host.contains(":") ? "[\(host)]" : host
    return "\(scheme)://\(shownHost):\(port)"
  }

  /// The websocket URL of a Reorder room (room names used by the tool are URL-safe).
  public func roomURL(_ room: String) -> String { "\(origin)/ws/\(room)" }

  /// The websocket URL of a mirror instance of libwebsockets-test-server.
  public func mirrorURL(_ room: String) -> String { "\(origin)/?mirror=\(room)" }

  /// True when every address `host` resolves to is a loopback address (127.0.0.0/8 or ::1).
  public var isLoopback: Bool { Self.isLoopback(host: host) }

  /// True when every address `host` resolves to is loopback; false when it does not resolve.
  public static func isLoopback(host: String) -> Bool {
    if host.lowercased() == "localhost" { return true }
    if let literal = loopbackLiteral(host) { return literal }
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    #if canImport(Glibc)
      hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    #else
      hints.ai_socktype = SOCK_STREAM
    #endif
    var list: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return false }
    defer { freeaddrinfo(first) }
    var cursor: UnsafeMutablePointer<addrinfo>? = first
    var sawAny = false
    while let entry = cursor {
      sawAny = true
      guard let address = entry.pointee.ai_addr else { return false }
      switch Int32(address.pointee.sa_family) {
      case AF_INET:
        let first = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
          UInt32(bigEndian: $0.pointee.sin_addr.s_addr) >> 24
        }
        if first != 127 { return false }
      case AF_INET6:
        let isLoop = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer -> Bool in
          withUnsafeBytes(of: pointer.pointee.sin6_addr) { bytes in
            bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] == 1
          }
        }
        if !isLoop { return false }
      default:
        return false
      }
      cursor = entry.pointee.ai_next
    }
    return sawAny
  }

  /// Decides for address literals without resolving: nil when `host` is not a literal.
  static func loopbackLiteral(_ host: String) -> Bool? {
    let parts = host.split(separator: ".", omittingEmptySubsequences: false)
    if parts.count == 4, parts.allSatisfy({ UInt8($0) != nil }) {
      return parts[0] == "127"
    }
    if host.contains(":") {
      var address = in6_addr()
      guard inet_pton(AF_INET6, host, &address) == 1 else { return nil }
      return withUnsafeBytes(of: address) { bytes in
        bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] == 1
      }
    }
    return nil
  }
}
