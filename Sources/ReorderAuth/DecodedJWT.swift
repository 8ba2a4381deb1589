import CJWT
import Glibc

/// One token libjwt decoded and verified; owns its `jwt_t` (freed in deinit, the one place).
///
/// libjwt 1.10 alone is not enough (`TokenVerifier` checks around it): it takes `alg` from the
/// header case-insensitively, so with a PEM key it verifies an HS256 token using the PEM bytes
/// as the HMAC secret (algorithm confusion); it ignores `crit`; it accepts `+`, `/` and `=` in
/// base64url; and it reports every failure as EINVAL.
final class DecodedJWT {
  private let handle: OpaquePointer

  private init(handle: OpaquePointer) { self.handle = handle }

  deinit { jwt_free(handle) }

  /// Decodes `token` and checks its signature with `key` (an HMAC secret or PEM public key
  /// bytes, for whatever algorithm the header names); nil when libjwt refuses it.
  static func decode(_ token: String, key: [UInt8]) -> DecodedJWT? {
    var handle: OpaquePointer?
    let status = key.withUnsafeBufferPointer { key in
      jwt_decode(&handle, token, key.baseAddress, Int32(key.count))
    }
    guard status == 0, let handle else { return nil }
    return DecodedJWT(handle: handle)
  }

  /// Decodes `token` WITHOUT checking its signature (libjwt 1.10 does that when given no key,
  /// and then reports `JWT_ALG_NONE`): only for a token whose signature was checked already.
  static func decodeVerifiedElsewhere(_ token: String) -> DecodedJWT? {
    var handle: OpaquePointer?
    guard jwt_decode(&handle, token, nil, 0) == 0, let handle else { return nil }
    return DecodedJWT(handle: handle)
  }

  /// The header's `alg`, exactly as written; nil when absent or not a string.
  var headerAlgorithm: String? { jwt_get_header(handle, "alg").map { String(cString: $0) } }

  /// The algorithm libjwt verified the signature with.
  var algorithm: jwt_alg_t { jwt_get_alg(handle) }

  /// A claim that is a JSON string; nil when it is absent or of another type.
  func string(_ claim: String) -> String? {
    jwt_get_grant(handle, claim).map { String(cString: $0) }
  }

  /// A claim's value as compact JSON text (`123`, `true`, `"x"`, `["a","b"]`); nil when absent.
  func json(_ claim: String) -> String? {
    guard let text = jwt_get_grants_json(handle, claim) else { return nil }
    defer { free(text) }
    return String(cString: text)
  }

  /// A header field's value as compact JSON text; nil when absent.
  func headerJSON(_ name: String) -> String? {
    guard let text = jwt_get_headers_json(handle, name) else { return nil }
    defer { free(text) }
    return String(cString: text)
  }
}
