import Foundation

/// A network range (`10.0.0.0/8`, `2001:db8::/32`, or one address) for `--trust-proxy`.
struct AddressRange: Equatable, Sendable {
  let bytes: [UInt8]
  let prefixLength: Int

  /// Parses `address[/prefix]`; nil when it is not one.
  init?(_ text: String) {
    let parts = text.trimmingCharacters(in: .whitespaces).split(separator: "/", maxSplits: 1).map(String.init)
    guard let first = parts.first, let bytes = AddressRange.parse(first) else { return nil }
    let bits = bytes.count * 8
    if parts.count == 2 {
      guard let prefix = Int(parts[1]), (0...bits).contains(prefix) else { return nil }
      prefixLength = prefix
    } else {
      prefixLength = bits
    }
    self.bytes = bytes
  }

  /// Whether `address` (text) lies in this range.
  func contains(_ address: String) -> Bool {
    guard let other = AddressRange.parse(address), other.count == bytes.count else { return false }
    var left = prefixLength
    for (a, b) in zip(bytes, other) where left > 0 {
      let bits = min(8, left)
      let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
      if a & mask != b & mask { return false }
      left -= bits
    }
    return true
  }

  /// The address's bytes (4 for IPv4, 16 for IPv6; an IPv4-mapped IPv6 address counts as IPv4).
  static func parse(_ text: String) -> [UInt8]? {
    var v4 = in_addr()
    if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
    var v6 = in6_addr()
    guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
    let bytes = withUnsafeBytes(of: &v6) { Array($0) }
    if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF { return Array(bytes[12...]) }
    return bytes
  }

  /// Whether `host` (a `--host` value) is a loopback address.
  static func isLoopback(_ host: String) -> Bool {
    if host == "localhost" { return true }
    guard let bytes = parse(host) else { return false }
    return bytes.count == 4 ? bytes[0] == 127 : bytes == [UInt8](repeating: 0, count: 15) + [1]
  }
}

/// The address a connection comes from: the TCP peer, or — when the peer is a trusted proxy
/// (`--trust-proxy`) — the nearest address in `X-Forwarded-For` that is not one of the proxies
/// (read from the right, since a client can put anything on the left).
func clientAddress(peer: String, forwardedFor: String?, trusted: [AddressRange]) -> String {
  guard let forwardedFor, trusted.contains(where: { $0.contains(peer) }) else { return peer }
  for hop in forwardedFor.split(separator: ",").reversed() {
    let address = hop.trimmingCharacters(in: .whitespaces)
    guard AddressRange.parse(address) != nil else { return peer }
    if !trusted.contains(where: { $0.contains(address) }) { return address }
  }
  return peer
}
