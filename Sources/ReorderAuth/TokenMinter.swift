import CJWT
import Glibc

/// Mints room tokens with libjwt, as an app's backend would (`reorder token` uses it): HS256 with
/// a secret, ES256 or RS256 with a PEM private key (from a JWK, `JSONWebKeySet.signingKey`).
public struct TokenMinter: Sendable {
  private let key: SigningKey
  /// `kid` put in every token's header, if any.
  public let keyID: String?
  /// `aud` put in every token, if any.
  public let audience: String?
  /// `iss` put in every token, if any.
  public let issuer: String?

  /// A minter for `key`, which must be an HS256 secret (a public key cannot sign).
  public init(key: TokenKey, keyID: String? = nil, audience: String? = nil, issuer: String? = nil) {
    guard case .secret(let secret) = key else { preconditionFailure("a public key cannot sign: give a SigningKey") }
    self.init(signingKey: .secret(secret), keyID: keyID, audience: audience, issuer: issuer)
  }

  /// A minter for `signingKey`; `keyID` goes into each header as `kid`.
  public init(signingKey: SigningKey, keyID: String? = nil, audience: String? = nil, issuer: String? = nil) {
    if case .secret(let secret) = signingKey {
      precondition(secret.count >= TokenKey.minimumSecretBytes, "an HS256 secret has at least 32 bytes")
    }
    key = signingKey
    self.keyID = keyID
    self.audience = audience
    self.issuer = issuer
  }

  /// A signed token (`header.claims.signature`) carrying `claims`; `presence` is written only
  /// when false, the optional claims only when set.
  public func mint(_ claims: TokenClaims) -> String {
    guard let token = tryMint(claims) else {
      preconditionFailure("libjwt could not sign with this \(key.algorithm.rawValue) key")
    }
    return token
  }

  /// `mint`, or nil when libjwt cannot sign with the key (a PEM it cannot read).
  func tryMint(_ claims: TokenClaims) -> String? {
    var handle: OpaquePointer?
    precondition(jwt_new(&handle) == 0 && handle != nil, "jwt_new failed (out of memory)")
    defer { jwt_free(handle) }
    let bytes: [UInt8]
    switch key {
    case .secret(let secret): bytes = secret
    case .privateKey(let pem, _): bytes = pem
    }
    let status = bytes.withUnsafeBufferPointer {
      jwt_set_alg(handle, key.algorithm.libjwt, $0.baseAddress, Int32($0.count))
    }
    guard status == 0 else { return nil }
    if let keyID { precondition(jwt_add_header(handle, "kid", keyID) == 0, "cannot add kid") }
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
    if !claims.broadcast { precondition(jwt_add_grant_bool(handle, "broadcast", 0) == 0, "cannot add broadcast") }
    guard let encoded = jwt_encode_str(handle) else { return nil }
    defer { free(encoded) }
    return String(cString: encoded)
  }
}
