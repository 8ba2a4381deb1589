import Foundation

/// What a trusted reverse proxy (`--trust-proxy`) says of the request it forwards: the scheme and
/// host the browser used, and the addresses it came through. Read from RFC 7239 `Forwarded`
/// (`proto=`, `host=`, `for=`) and, where that says nothing, `X-Forwarded-Proto`,
/// `X-Forwarded-Host` and `X-Forwarded-For`.
///
/// Scheme and host are taken from the first hop (the proxy the browser talked to); a proxy that
/// appends to a client's header leaves the client's value first, which matters only for clients
/// that are not browsers, since a page cannot set these headers on a websocket.
struct ProxyForwarding: Equatable, Sendable {
  /// `http` or `https` as the client used it, lower case; nil when no header says.
  let proto: String?
  /// The `Host` the client sent the proxy, lower case; nil when no header says.
  let host: String?
  /// The `for=` addresses of `Forwarded` in order (ports and brackets removed), else nil.
  let forwardedFor: [String]?

  /// Reads the three headers (nil: absent).
  init(forwarded: String?, forwardedProto: String?, forwardedHost: String?) {
    let hops = forwarded.map(Self.parse) ?? []
    let first = hops.first ?? [:]
    proto = (first["proto"] ?? Self.firstValue(forwardedProto)).map { $0.lowercased() }
    host = (first["host"] ?? Self.firstValue(forwardedHost)).map { $0.lowercased() }
    let addresses = hops.compactMap { $0["for"].map(Self.address) }
    forwardedFor = addresses.isEmpty ? nil : addresses
  }

  /// `X-Forwarded-For`'s form of `forwardedFor` (comma separated), for `clientAddress`.
  var forwardedForList: String? { forwardedFor?.joined(separator: ", ") }

  /// A `Forwarded` value's hops (comma separated), each its `key=value` pairs (semicolon
  /// separated; keys lower case, values unquoted).
  static func parse(_ header: String) -> [[String: String]] {
    splitOutsideQuotes(header, on: ",").map { element in
      var pairs: [String: String] = [:]
      for pair in splitOutsideQuotes(element, on: ";") {
        guard let equals = pair.firstIndex(of: "=") else { continue }
        let key = pair[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
        var value = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
          value = String(value.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
        }
        if !key.isEmpty, pairs[key] == nil { pairs[key] = value }
      }
      return pairs
    }
  }

  /// A `for=` node as an address: `192.0.2.60:47011` → `192.0.2.60`, `[2001:db8::1]:80` →
  /// `2001:db8::1`; obfuscated and `unknown` nodes stay as they are (they parse as no address).
  static func address(_ node: String) -> String {
    if node.hasPrefix("["), let close = node.firstIndex(of: "]") {
      return String(node[node.index(after: node.startIndex)..<close])
    }
    let parts = node.split(separator: ":", omittingEmptySubsequences: false)
    return parts.count == 2 ? String(parts[0]) : node
  }

  /// The first of a comma list's values, trimmed; nil when there is none.
  private static func firstValue(_ list: String?) -> String? {
    guard let value = list?.split(separator: ",").first?.trimmingCharacters(in: .whitespaces), !value.isEmpty
    else { return nil }
    return value
  }

  /// `text` split at `separator` where it is not inside double quotes.
  private static func splitOutsideQuotes(_ text: String, on separator: Character) -> [String] {
    var parts: [String] = []
    var current = ""
    var quoted = false
    var escaped = false
    for character in text {
      if escaped {
        escaped = false
      } else if character == "\\" && quoted {
        escaped = true
      } else if character == "\"" {
        quoted.toggle()
      } else if character == separator && !quoted {
        parts.append(current)
        current = ""
        continue
      }
      current.append(character)
    }
    parts.append(current)
    return parts.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
  }
}
