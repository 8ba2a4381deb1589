import ReorderAuth

/// The verifiers the tests use, all on `Forge.now`.
enum Verifiers {
  static var keys: TestKeys { TestKeys.shared }

  static func hs256(audience: String? = nil, issuer: String? = nil, now: Int64 = Forge.now) -> TokenVerifier {
    TokenVerifier(key: .secret(keys.secret), audience: audience, issuer: issuer, now: { now })
  }

  static func es256() throws -> TokenVerifier {
    TokenVerifier(key: try TokenKey.publicKey(file: keys.ecPublic), now: { Forge.now })
  }

  static func rs256() throws -> TokenVerifier {
    TokenVerifier(key: try TokenKey.publicKey(file: keys.rsaPublic), now: { Forge.now })
  }

  /// Two HS256 keys: k1 is the tests' secret, k2 another.
  static func keySet() -> TokenVerifier {
    let set = JSONWebKeySet(keys: [
      JSONWebKey(keyID: "k1", verificationKey: .secret(keys.secret)),
      JSONWebKey(keyID: "k2", verificationKey: .secret(Array("the second key of the set, 32+ bytes long".utf8))),
    ])
    return TokenVerifier(keys: set, now: { Forge.now })
  }
}

/// One refused token: how it was made, the verifier it meets, the reason it must get.
struct BadToken: Sendable, CustomStringConvertible {
  enum Against: Sendable { case hs256, hs256WithAudienceAndIssuer, es256, rs256, keySet }

  let description: String
  let token: String?
  let against: Against
  let reason: TokenError.Reason
  /// When set, checked with `verify(token:forRoom:)`.
  let room: String?
  /// When set, checked as a refresh of a token with these claims (in `room`, or board-1).
  let refreshing: TokenClaims?

  init(
    _ description: String, _ token: String?, _ reason: TokenError.Reason, against: Against = .hs256,
    room: String? = nil, refreshing: TokenClaims? = nil
  ) {
    self.description = description
    self.token = token
    self.against = against
    self.reason = reason
    self.room = room
    self.refreshing = refreshing
  }

  func verify() throws -> Result<TokenClaims, TokenError> {
    let verifier: TokenVerifier
    switch against {
    case .hs256: verifier = Verifiers.hs256()
    case .hs256WithAudienceAndIssuer: verifier = Verifiers.hs256(audience: "reorder", issuer: "https://app.example")
    case .es256: verifier = try Verifiers.es256()
    case .rs256: verifier = try Verifiers.rs256()
    case .keySet: verifier = Verifiers.keySet()
    }
    if let refreshing { return verifier.verifyRefresh(token: token, current: refreshing, room: room ?? "board-1") }
    if let room { return verifier.verify(token: token, forRoom: room) }
    return verifier.verify(token: token)
  }
}
