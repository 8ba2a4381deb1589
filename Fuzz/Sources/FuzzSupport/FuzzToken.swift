import ReorderAuth
import TestTokens

/// HS256 tokens signed over any header and claims text, byte for byte what
/// `HandMadeToken.hs256(header:claims:secret:)` makes, with a base64url over bytes and libcrypto's
/// HMAC (`HMACSHA256`): the hand-made one builds a `String` a character at a time and hashes in
/// Swift, both slow under the sanitizers, and none of it is code under test. `agreesWithHandMade`
/// keeps the two equal (and so this HMAC honest against the independent one).
public enum FuzzToken {
  private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

  /// Unpadded base64url of `bytes`, appended to `out`.
  static func b64(_ bytes: [UInt8], to out: inout [UInt8]) {
    var index = 0
    while index < bytes.count {
      let count = min(3, bytes.count - index)
      var value = Int(bytes[index]) << 16
      if count > 1 { value |= Int(bytes[index + 1]) << 8 }
      if count > 2 { value |= Int(bytes[index + 2]) }
      for position in 0...count { out.append(alphabet[(value >> (18 - 6 * position)) & 63]) }
      index += 3
    }
  }

  /// `b64(header).b64(claims).b64(HMAC-SHA256(secret, b64(header).b64(claims)))`.
  public static func hs256(header: String = #"{"alg":"HS256","typ":"JWT"}"#, claims: String, secret: [UInt8])
    -> String
  {
    var input: [UInt8] = []
    input.reserveCapacity((header.utf8.count + claims.utf8.count) * 4 / 3 + 48)
    b64(Array(header.utf8), to: &input)
    input.append(UInt8(ascii: "."))
    b64(Array(claims.utf8), to: &input)
    var token = input
    token.append(UInt8(ascii: "."))
    b64(HMACSHA256.authenticate(input, key: secret), to: &token)
    return String(decoding: token, as: UTF8.self)
  }

  /// Whether `hs256` makes the hand-made tokens for a few header and claims texts (a target
  /// checks it once at its start).
  public static func agreesWithHandMade(secret: [UInt8]) -> Bool {
    let texts = ["", "a", "ab", "abc", #"{"sub":"u-1","rooms":["food"],"exp":1800000600}"#, "\u{0}\u{FF}é🍕"]
    return texts.allSatisfy { claims in
      texts.allSatisfy { header in
        hs256(header: header, claims: claims, secret: secret)
          == HandMadeToken.hs256(header: header, claims: claims, secret: secret)
      } && hs256(claims: claims, secret: secret) == HandMadeToken.hs256(claims: claims, secret: secret)
    }
  }
}
