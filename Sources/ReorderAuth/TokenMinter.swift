import CJWT
import Glibc

/// Mints HS256 room tokens with libjwt, as an app's backend would (`reorder token` uses it).
public struct TokenMinter: Sendable {
  private let secret: [UInt8]
  /// `aud` put in every token, if any.
  public let audience: String?
  /// `iss` put in every token, if any.
  public let issuer: String?

  /// A minter for `key`, which must be an HS256 secret (a public key cannot sign).
  public init(key: TokenKey, audience: String? = nil, issuer: String? = nil) {
    guard case .secret(let secret) = key else { preconditionFailure("TokenMinter signs with an HS256 secret only") }
    precondition(secret.count >= TokenKey.minimumSecretBytes, "an HS256 secret has at least 32 bytes")
    self.secret = secret
    self.audience = audience
    self.issuer = issuer
  }

  /// A signed token (`header.claims.signature`) carrying `claims`; `presence` is written only
  /// when false, the optional claims only when set.
  public func mint(_ claims: TokenClaims) -> String {
    var handle: OpaquePointer?
    precondition(jwt_new(&handle) == 0 && handle != nil, "jwt_new failed (out of memory)")
    defer { jwt_free(handle) }
    let status = secret.withUnsafeBufferPointer { jwt_set_alg(handle, JWT_ALG_HS256, $0.baseAddress, Int32($0.count)) }
    precondition(status == 0, "jwt_set_alg refused a \(secret.count)-byte secret")
    var strings = [("sub", claims.subject), ("room", claims.room.description), ("role", claims.role.rawValue)]
    if let name = claims.name { strings.append(("name", name)) }
    if let color = claims.color { strings.append(("color", color)) }
    if let audience { strings.append(("aud", audience)) }
    if let issuer { strings.append(("iss", issuer)) }
    for (claim, value) in strings { precondition(jwt_add_grant(handle, claim, value) == 0, "cannot add \(claim)") }
    var numbers = [("exp", claims.expiresAt)]
    if let notBefore = claims.notBefore { numbers.append(("nbf", notBefore)) }
    if let issuedAt = claims.issuedAt { numbers.append(("iat", issuedAt)) }
    for (claim, value) in numbers {
      precondition(jwt_add_grant_int(handle, claim, Int(value)) == 0, "cannot add \(claim)")
    }
    if !claims.presence { precondition(jwt_add_grant_bool(handle, "presence", 0) == 0, "cannot add presence") }
    guard let encoded = jwt_encode_str(handle) else { preconditionFailure("jwt_encode_str failed") }
    defer { free(encoded) }
    return String(cString: encoded)
  }
}
