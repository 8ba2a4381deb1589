import Foundation
import TestSupport
import TestTokens

/// Hand-made tokens: base64url and signatures done here (HMAC in plain Swift, ECDSA and RSA by
/// the `openssl` CLI), never by the code under test, so a token can be wrong in any one way.
enum Forge {
  /// The clock every verifier in these tests reads.
  static let now: Int64 = 1_800_000_000

  static let hs256Header = #"{"alg":"HS256","typ":"JWT"}"#

  /// Unpadded base64url.
  static func b64(_ bytes: [UInt8]) -> String {
    Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
      .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
  }

  static func b64(_ text: String) -> String { b64(Array(text.utf8)) }

  /// Decodes unpadded base64url (lenient: for reading what the code under test wrote).
  static func unb64(_ text: String) -> [UInt8]? {
    var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while standard.count % 4 != 0 { standard += "=" }
    return Data(base64Encoded: standard).map { [UInt8]($0) }
  }

  /// Valid claims (sub, room board-1, role editor, exp an hour ahead), changed by `set`, less `remove`.
  static func claims(_ set: [String: Any] = [:], remove: [String] = []) -> String {
    var claims: [String: Any] = ["sub": "user-1", "room": "board-1", "role": "editor", "exp": now + 3600]
    claims.merge(set) { _, new in new }
    for name in remove { claims[name] = nil }
    let data = try! JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
    return String(decoding: data, as: UTF8.self)
  }

  /// `b64(header).b64(claims).b64(HMAC-SHA256(secret, signing input))`.
  static func hs256(header: String = hs256Header, claims: String = claims(), secret: [UInt8]) -> String {
    hs256(encodedHeader: b64(header), encodedClaims: b64(claims), secret: secret)
  }

  /// HS256 over parts given already encoded (to send parts that are not valid base64url).
  static func hs256(encodedHeader: String, encodedClaims: String, secret: [UInt8]) -> String {
    let input = encodedHeader + "." + encodedClaims
    return input + "." + b64(TestHMAC.hmacSHA256(key: secret, message: Array(input.utf8)))
  }

  /// ES256 (raw r||s, RFC 7518 §3.4) or RS256 signed by `openssl dgst` with a PEM private key.
  static func pem(header: String, claims: String = claims(), privateKey: String, ecdsa: Bool) throws -> String {
    let input = b64(header) + "." + b64(claims)
    let signature = try OpenSSLKeys.run(["dgst", "-sha256", "-sign", privateKey], input: Array(input.utf8))
    return input + "." + b64(ecdsa ? try rawECDSA(der: signature) : signature)
  }

  static func es256(claims: String = claims(), privateKey: String) throws -> String {
    try pem(header: #"{"alg":"ES256","typ":"JWT"}"#, claims: claims, privateKey: privateKey, ecdsa: true)
  }

  static func rs256(claims: String = claims(), privateKey: String) throws -> String {
    try pem(header: #"{"alg":"RS256","typ":"JWT"}"#, claims: claims, privateKey: privateKey, ecdsa: false)
  }

  /// DER `SEQUENCE { INTEGER r, INTEGER s }` to 32-byte big-endian r then s.
  static func rawECDSA(der: [UInt8]) throws -> [UInt8] {
    struct BadDER: Error {}
    var index = 2  // SEQUENCE tag and (short) length
    var out = [UInt8]()
    for _ in 0..<2 {
      guard index + 2 <= der.count, der[index] == 0x02 else { throw BadDER() }
      let length = Int(der[index + 1])
      var integer = Array(der[(index + 2)..<(index + 2 + length)])
      while integer.count > 32, integer.first == 0 { integer.removeFirst() }
      out += [UInt8](repeating: 0, count: 32 - integer.count) + integer
      index += 2 + length
    }
    return out
  }
}
