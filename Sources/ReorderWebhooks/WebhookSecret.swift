import Foundation
import ReorderAuth
import ReorderBasics

/// The key webhooks are signed with, in the Standard Webhooks form: `whsec_` followed by the
/// base64 of 24 to 64 random bytes (`--webhook-secret-file`; make one with
/// `echo "whsec_$(openssl rand -base64 32)"`). The HMAC key is the decoded bytes, not the text.
public struct WebhookSecret: Sendable {
  let key: [UInt8]

  /// Bytes a secret's key must have (the specification's bounds).
  static let keyBytes = 24...64

  /// Parses `text` (surrounding whitespace ignored).
  /// - Throws: `ConfigurationError` saying what form is expected; the text is never echoed.
  public init(text: String) throws(ConfigurationError) {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    guard trimmed.hasPrefix("whsec_"), let key = Data(base64Encoded: String(trimmed.dropFirst(6))) else {
      throw ConfigurationError(
        "the webhook secret must be whsec_ followed by base64 (echo \"whsec_$(openssl rand -base64 32)\" > FILE)")
    }
    guard Self.keyBytes.contains(key.count) else {
      throw ConfigurationError("the webhook secret must encode 24 to 64 bytes, not \(key.count)")
    }
    self.key = Array(key)
  }

  /// Reads and parses the secret in `file`.
  public init(file: String) throws(ConfigurationError) {
    guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
      throw ConfigurationError("cannot read --webhook-secret-file \(file)")
    }
    try self.init(text: text)
  }

  /// `v1,<base64 of HMAC-SHA256(key, id + "." + timestamp + "." + body)>`.
  func signature(id: String, timestamp: Int, body: [UInt8]) -> String {
    let signed = Array("\(id).\(timestamp).".utf8) + body
    return "v1," + Data(HMACSHA256.authenticate(signed, key: key)).base64EncodedString()
  }

  /// The three headers of a delivery sent at `timestamp` (Unix seconds).
  func headers(id: String, timestamp: Int, body: [UInt8]) -> [(name: String, value: String)] {
    [
      ("webhook-id", id), ("webhook-timestamp", String(timestamp)),
      ("webhook-signature", signature(id: id, timestamp: timestamp, body: body)),
    ]
  }
}
