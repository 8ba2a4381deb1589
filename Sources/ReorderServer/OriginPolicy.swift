import Foundation
import ReorderBasics

/// Which web pages may open a websocket to this server: the `Origin` a browser sends with every
/// upgrade, against `--allowed-origins` (exact origins such as `https://board.example.com` and
/// patterns such as `https://*.example.com`, which match one or more subdomain labels).
///
/// Without `--allowed-origins` the server's own origin is allowed (the scheme it serves and the
/// `Host` the request names) plus `http://127.0.0.1:PORT` and `http://localhost:PORT`, so the page
/// it serves works and other sites' pages cannot connect (cross-site websocket hijacking). Behind a
/// trusted proxy the own origin is the one the browser used with the proxy (`ProxyForwarding`: its
/// scheme and host; without a scheme header both `http` and `https` with that host), so a proxy that
/// terminates TLS needs no `--allowed-origins`. `null`
/// (sandboxed frames, `file:` pages) is never allowed. A request without `Origin` is not from a
/// browser page and is allowed (it still needs a token when auth is on).
struct OriginPolicy: Equatable, Sendable {
  /// One allowed origin.
  enum Pattern: Equatable, Sendable {
    case exact(String)
    /// `scheme://*.suffix[:port]`: any host that ends in `.suffix`.
    case wildcard(scheme: String, suffix: String, port: String?)
  }

  /// The configured origins (empty: the defaults above).
  let patterns: [Pattern]
  /// Whether the server speaks TLS (its own origin is `https://…`).
  let secure: Bool

  /// Parses `--allowed-origins` (a comma list; empty: the defaults).
  /// - Throws: `ConfigurationError` for an entry that is not `scheme://host[:port]`.
  init(list: String, secure: Bool) throws(ConfigurationError) {
    self.secure = secure
    var patterns: [Pattern] = []
    for raw in list.split(separator: ",") {
      let entry = raw.trimmingCharacters(in: .whitespaces).lowercased()
      guard !entry.isEmpty else { continue }
      guard let schemeEnd = entry.range(of: "://"), !entry.hasSuffix("/"), entry != "null" else {
        throw ConfigurationError(
          "--allowed-origins takes origins such as https://board.example.com or https://*.example.com, not '\(entry)'")
      }
      let scheme = String(entry[..<schemeEnd.lowerBound])
      let authority = String(entry[schemeEnd.upperBound...])
      if authority.hasPrefix("*.") {
        let (host, port) = Self.split(authority: String(authority.dropFirst(2)))
        guard !host.isEmpty, !host.contains("*") else {
          throw ConfigurationError("--allowed-origins: a pattern has one leading '*.', as in https://*.example.com")
        }
        patterns.append(.wildcard(scheme: scheme, suffix: host, port: port))
      } else {
        guard !authority.isEmpty, !authority.contains("*"), !authority.contains("/") else {
          throw ConfigurationError("--allowed-origins: '\(entry)' is not an origin")
        }
        patterns.append(.exact(entry))
      }
    }
    self.patterns = patterns
  }

  /// Whether an upgrade with `origin` (nil: none sent) and `host` (its `Host` header) may connect to
  /// a server on `port`; `forwarding` is what a trusted proxy said of it (nil: not from one).
  func allows(origin: String?, host: String?, port: Int, forwarding: ProxyForwarding? = nil) -> Bool {
    guard let origin else { return true }
    let candidate = origin.lowercased()
    if candidate == "null" { return false }
    if patterns.isEmpty {
      return ownOrigins(host: host, port: port, forwarding: forwarding).contains(candidate)
    }
    return patterns.contains { pattern in
      switch pattern {
      case .exact(let allowed):
        return candidate == allowed
      case .wildcard(let scheme, let suffix, let port):
        guard candidate.hasPrefix(scheme + "://") else { return false }
        let (host, candidatePort) = Self.split(authority: String(candidate.dropFirst(scheme.count + 3)))
        return candidatePort == port && host.hasSuffix("." + suffix) && host.count > suffix.count + 1
      }
    }
  }

  /// The origins a page this server serves may have (the defaults without `--allowed-origins`).
  func ownOrigins(host: String?, port: Int, forwarding: ProxyForwarding?) -> [String] {
    var own = ["http://127.0.0.1:\(port)", "http://localhost:\(port)"]
    if let host { own.append((secure ? "https://" : "http://") + host.lowercased()) }
    if let forwarding, let publicHost = forwarding.host ?? host?.lowercased() {
      let schemes = forwarding.proto.map { [$0] } ?? ["http", "https"]
      own += schemes.map { "\($0)://\(publicHost)" }
    }
    return own
  }

  /// `host[:port]` → host and port (IPv6 literals in brackets keep their colons).
  static func split(authority: String) -> (host: String, port: String?) {
    if let bracket = authority.lastIndex(of: "]") {
      let rest = authority[authority.index(after: bracket)...]
      return (String(authority[...bracket]), rest.hasPrefix(":") ? String(rest.dropFirst()) : nil)
    }
    guard let colon = authority.lastIndex(of: ":") else { return (authority, nil) }
    return (String(authority[..<colon]), String(authority[authority.index(after: colon)...]))
  }
}
