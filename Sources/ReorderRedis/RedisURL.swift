import Foundation

/// Where Redis is: `redis://HOST:PORT[/DB]` (`--redis`), and the password read from
/// `--redis-password-file` if there is one.
///
/// The URL carries no password (it would show in `ps` and in logs); a password comes only from a
/// file. HOST is a name or an IPv4 address, or an IPv6 address in brackets (`redis://[::1]:6379`).
/// PORT is required (1…65535); DB is a database number (0 when absent).
public struct RedisURL: Sendable, Equatable, CustomStringConvertible {
  /// Host name or address, without brackets.
  public var host: String
  /// TCP port.
  public var port: Int
  /// Database number selected after connecting (`SELECT`; 0 is Redis' default).
  public var database: Int
  /// The ACL user name for `AUTH user password` (`--redis-user`), or nil for Redis' default user.
  public var user: String?
  /// The password for `AUTH`, or nil for none.
  public var password: String?

  /// A URL from its parts.
  public init(host: String, port: Int, database: Int = 0, user: String? = nil, password: String? = nil) {
    self.host = host
    self.port = port
    self.database = database
    self.user = user
    self.password = password
  }

  /// Parses `redis://HOST:PORT[/DB]`.
  public init(parsing text: String) throws(RedisError) {
    let scheme = "redis://"
    guard text.hasPrefix(scheme) else { throw .invalidURL(text, reason: "it must start with redis://") }
    var rest = Substring(text.dropFirst(scheme.count))
    if let at = rest.lastIndex(of: "@") {
      // Shown without what stands before the @: it may be a password.
      throw .invalidURL(
        scheme + "…@" + rest[rest.index(after: at)...],
        reason: "a password belongs in --redis-password-file, not in the URL")
    }
    var database = 0
    if let slash = rest.firstIndex(of: "/") {
      let db = rest[rest.index(after: slash)...]
      rest = rest[..<slash]
      if !db.isEmpty {
        guard let number = Int(db), number >= 0 else {
          throw .invalidURL(text, reason: "the database after / must be a number ≥ 0")
        }
        database = number
      }
    }
    let host: Substring
    let portText: Substring
    if rest.hasPrefix("[") {
      guard let close = rest.firstIndex(of: "]"), rest[rest.index(after: close)...].hasPrefix(":") else {
        throw .invalidURL(text, reason: "an IPv6 host is written [ADDRESS]:PORT")
      }
      host = rest[rest.index(after: rest.startIndex)..<close]
      portText = rest[rest.index(close, offsetBy: 2)...]
    } else {
      guard let colon = rest.lastIndex(of: ":") else {
        throw .invalidURL(text, reason: "it needs a port: redis://HOST:PORT")
      }
      host = rest[..<colon]
      portText = rest[rest.index(after: colon)...]
    }
    guard !host.isEmpty else { throw .invalidURL(text, reason: "the host is empty") }
    guard let port = Int(portText), (1...65_535).contains(port) else {
      throw .invalidURL(text, reason: "the port must be a number from 1 to 65535")
    }
    self.init(host: String(host), port: port, database: database)
  }

  /// Parses `text` and reads the password from `passwordFile` (nil: no password). The file's
  /// content is the password, with one trailing line break removed; an empty file is an error.
  public init(parsing text: String, passwordFile: String?) throws(RedisError) {
    try self.init(parsing: text)
    guard let passwordFile else { return }
    let contents: String
    do {
      contents = try String(contentsOfFile: passwordFile, encoding: .utf8)
    } catch {
      throw .passwordFile(passwordFile, reason: "it cannot be read (\(error.localizedDescription))")
    }
    var password = Substring(contents)
    if password.hasSuffix("\r\n") {
      password = password.dropLast(2)
    } else if password.hasSuffix("\n") {
      password = password.dropLast()
    }
    guard !password.isEmpty else { throw .passwordFile(passwordFile, reason: "it is empty") }
    self.password = String(password)
  }

  /// `redis://HOST:PORT/DB`, never the password.
  public var description: String {
    let shownHost = host.contains(":") ? "[\(host)]" : host
    return "redis://\(shownHost):\(port)/\(database)"
  }
}
