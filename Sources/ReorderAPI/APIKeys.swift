import Foundation
import ReorderBasics

/// The keys of the HTTP API (`--api-key-file`: one per line, at least 32 characters), checked in
/// constant time against `Authorization: Bearer <key>`.
public struct APIKeys: Sendable {
  private let keys: [[UInt8]]

  /// Shortest key accepted.
  public static let minimumLength = 32

  /// Reads `file`. - Throws: `ConfigurationError` for an unreadable file, no key, or a short key.
  public init(file: String) throws(ConfigurationError) {
    guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
      throw ConfigurationError("--api-key-file: cannot read \(file)")
    }
    let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty }
    guard !lines.isEmpty else { throw ConfigurationError("--api-key-file: \(file) holds no key") }
    for line in lines where line.utf8.count < Self.minimumLength {
      throw ConfigurationError("--api-key-file: every key has at least \(Self.minimumLength) characters")
    }
    keys = lines.map { Array($0.utf8) }
  }

  /// Whether an `Authorization` header carries one of the keys.
  public func accepts(authorization: String?) -> Bool { key(authorization: authorization) != nil }

  /// Which key (its line number among the keys, from 0) an `Authorization` header carries, if
  /// any. Every key is compared, whichever matches.
  public func key(authorization: String?) -> Int? {
    guard let authorization, authorization.hasPrefix("Bearer ") else { return nil }
    let offered = Array(authorization.dropFirst("Bearer ".count).utf8)
    var match: Int?
    for (index, key) in keys.enumerated() where Self.equal(key, offered) { match = match ?? index }
    return match
  }

  /// Compares without stopping at the first difference (the time says nothing about the key).
  public static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    var difference = UInt8(a.count == b.count ? 0 : 1)
    for index in 0..<max(a.count, b.count) {
      difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
    }
    return difference == 0
  }
}
