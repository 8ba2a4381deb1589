import Foundation

/// Verifies room tokens (JWS compact JWTs) against one key or a set of keys (a JWK Set, where a
/// token's `kid` picks its key): checks the structure and header itself, the signature (HS256: in
/// constant time with libcrypto, then by libjwt; ES256 and RS256: with libcrypto against the key
/// parsed once), decodes with libjwt, then checks the claims, the times (with leeway) and, when
/// configured, the audience and issuer.
///
/// Immutable and `Sendable`: one verifier serves every connection, and a new key set is a new
/// verifier (`load` makes one from the key files, and can be called again to reload them). Time
/// comes from `now`, so tests set the clock instead of sleeping.
public struct TokenVerifier: Sendable {
  /// Longest accepted token, in bytes: far above any real room token, small enough that a
  /// flood of huge ones is cheap to refuse (checked before anything is decoded).
  public static let maxTokenBytes = 8 * 1024
  /// Leeway for clock differences between the app's backend and this server, in seconds.
  public static let defaultLeewaySeconds: Int64 = 60

  /// The keys tokens may be signed with (no private parts); each one's type or `alg` fixes the one
  /// `alg` accepted for it.
  public let keys: [JSONWebKey]
  /// When set, `aud` must be this string or an array containing it.
  public let audience: String?
  /// When set, `iss` must be this string.
  public let issuer: String?
  /// Seconds allowed on `exp` and `nbf`.
  public let leewaySeconds: Int64
  /// The current time in Unix seconds.
  public let now: @Sendable () -> Int64
  /// The encoded headers libraries write (`{"alg":"HS256","typ":"JWT"}`, `{"alg":"ES256","kid":"k1",
  /// "typ":"JWT"}` and the like), each with the index in `keys` of the key it picks: a token with
  /// one of them skips the JSON parse of its header. Each is one `checkHeader` accepts for that key.
  let commonHeaders: [[UInt8]: Int]
  /// How signatures are checked before (HS256) or instead of (public keys) libjwt's check, by key.
  let signatureChecks: [SignatureCheck]

  enum SignatureCheck: Sendable {
    /// HMACGate, then libjwt verifies too.
    case hmac(secret: [UInt8])
    /// PublicKeyGate with the key parsed once; libjwt decodes.
    case publicKey(PublicKeyGate)
  }

  /// Makes a verifier for one key: a token's `kid` is not looked at.
  public init(
    key: TokenKey, audience: String? = nil, issuer: String? = nil, leewaySeconds: Int64 = defaultLeewaySeconds,
    now: @escaping @Sendable () -> Int64 = TokenVerifier.systemClock
  ) {
    self.init(
      keys: JSONWebKeySet(keys: [JSONWebKey(verificationKey: key)]), audience: audience, issuer: issuer,
      leewaySeconds: leewaySeconds, now: now)
  }

  /// Makes a verifier for a key set (at least one key; several only each with its own `kid`, as
  /// `JSONWebKeySet.parse` makes them). A set of one key without a `kid` ignores a token's `kid`;
  /// otherwise a token's `kid` must name a key, and may be left out only when there is one key.
  public init(
    keys set: JSONWebKeySet, audience: String? = nil, issuer: String? = nil,
    leewaySeconds: Int64 = defaultLeewaySeconds, now: @escaping @Sendable () -> Int64 = TokenVerifier.systemClock
  ) {
    precondition(!set.keys.isEmpty, "a verifier needs at least one key")
    precondition(
      set.keys.count == 1 || Set(set.keys.compactMap(\.keyID)).count == set.keys.count,
      "several keys each need a kid of their own")
    keys = set.keys.map { JSONWebKey(keyID: $0.keyID, verificationKey: $0.verificationKey) }
    self.audience = audience
    self.issuer = issuer
    self.leewaySeconds = leewaySeconds
    self.now = now
    signatureChecks = keys.map { key in
      switch key.verificationKey {
      case .secret(let secret):
        precondition(secret.count >= TokenKey.minimumSecretBytes, "an HS256 secret has at least 32 bytes")
        return .hmac(secret: secret)
      case .publicKey(let pem, let algorithm):
        guard let gate = PublicKeyGate(pem: pem, algorithm: algorithm) else {
          preconditionFailure(
            "TokenKey.publicKey holds no \(algorithm) public key: make it with TokenKey.publicKey(file:)")
        }
        return .publicKey(gate)
      }
    }
    commonHeaders = Self.commonHeaders(keys)
  }

  /// Reads the key material of `reorder serve`'s flags, exactly one of a JWK Set
  /// (`--auth-jwks-file`), an HS256 secret (`--auth-secret-file`) or a PEM public key
  /// (`--auth-public-key`), and makes the verifier; nil when none is given (tokens are off).
  ///
  /// Nothing is kept between calls: calling it again re-reads the files, and the verifier it
  /// returns can replace the old one (a reload that throws leaves the caller with the old one).
  ///
  /// - Throws: `TokenConfigurationError`, saying which file is wrong and how.
  public static func load(
    jwksFile: String?, secretFile: String?, publicKeyFile: String?, audience: String? = nil, issuer: String? = nil,
    leewaySeconds: Int64 = defaultLeewaySeconds, now: @escaping @Sendable () -> Int64 = TokenVerifier.systemClock
  ) throws(TokenConfigurationError) -> TokenVerifier? {
    let set: JSONWebKeySet
    switch (jwksFile, secretFile, publicKeyFile) {
    case (nil, nil, nil):
      return nil
    case (let file?, nil, nil):
      set = try JSONWebKeySet.read(file: file)
    case (nil, let file?, nil):
      set = JSONWebKeySet(keys: [JSONWebKey(verificationKey: try TokenKey.secret(file: file))])
    case (nil, nil, let file?):
      set = JSONWebKeySet(keys: [JSONWebKey(verificationKey: try TokenKey.publicKey(file: file))])
    default:
      throw .severalKeySources
    }
    return TokenVerifier(keys: set, audience: audience, issuer: issuer, leewaySeconds: leewaySeconds, now: now)
  }

  /// The wall clock, in whole Unix seconds.
  @Sendable public static func systemClock() -> Int64 { Int64(Date().timeIntervalSince1970) }

  /// Verifies `token` (nil when the client sent none) and returns its claims or why it is refused.
  ///
  /// The room is not checked here: see `verify(token:forRoom:)`.
  public func verify(token: String?) -> Result<TokenClaims, TokenError> {
    guard let token else { return .failure(TokenError(.missing, "no token: send one in hello (\"token\": \"…\")")) }
    let bytes = Array(token.utf8)
    if bytes.isEmpty { return .failure(TokenError(.missing, "the token is empty")) }
    if bytes.count > Self.maxTokenBytes {
      return .failure(
        TokenError(.tooLarge, "the token has \(bytes.count) bytes; at most \(Self.maxTokenBytes) are accepted"))
    }
    var dots: [Int] = []
    for index in bytes.indices where bytes[index] == UInt8(ascii: ".") {
      dots.append(index)
      if dots.count > 2 { break }
    }
    guard dots.count == 2 else {
      return .failure(
        TokenError(.malformed, "a token is three base64url parts separated by dots; this one has \(dots.count + 1)"))
    }
    let header = bytes[..<dots[0]]
    let payload = bytes[(dots[0] + 1)..<dots[1]]
    let index: Int
    if let known = commonHeaders[Array(header)] {
      index = known
    } else {
      switch checkHeader(header) {
      case .success(let picked): index = picked
      case .failure(let refusal): return .failure(refusal)
      }
    }
    let key = keys[index].verificationKey
    guard !payload.isEmpty, let claimsJSON = Base64URL.decode(payload) else {
      return .failure(TokenError(.malformed, "the claims part is not base64url"))
    }
    // libjwt also takes a JSON array as the claims; RFC 7519 §7.2 wants an object.
    guard claimsJSON.first(where: { !Self.isJSONWhitespace($0) }) == UInt8(ascii: "{") else {
      return .failure(TokenError(.malformed, "the claims part is not a JSON object"))
    }
    guard let signature = Base64URL.decode(bytes[(dots[1] + 1)...]), !signature.isEmpty else {
      return .failure(TokenError(.malformed, "the signature part is empty or not base64url"))
    }
    let signingInput = bytes[..<dots[1]]
    let decoded: DecodedJWT
    switch signatureChecks[index] {
    case .hmac(let secret):
      guard HMACGate.matches(signature: signature, signingInput: signingInput, secret: secret),
        let verified = DecodedJWT.decode(token, key: secret), verified.algorithm == key.algorithm.libjwt
      else { return .failure(explainRefusal(payload: payload)) }
      decoded = verified
    case .publicKey(let gate):
      guard gate.matches(signature: signature, signingInput: signingInput),
        let parsed = DecodedJWT.decodeVerifiedElsewhere(token)
      else { return .failure(explainRefusal(payload: payload)) }
      decoded = parsed
    }
    // Belt and braces: the header libjwt read must name the key's algorithm, and carry no crit.
    guard decoded.headerAlgorithm == key.algorithm.rawValue else {
      return .failure(TokenError(.unsupportedAlgorithm, "the token's alg is not the one its key takes"))
    }
    if decoded.headerJSON("crit") != nil {
      return .failure(TokenError(.critHeader, "the header has crit: no JWS extension is supported"))
    }
    return claims(of: decoded)
  }

  /// Verifies `token` and checks that its `room` claim covers `room`: `forbidden` otherwise.
  public func verify(token: String?, forRoom room: String) -> Result<TokenClaims, TokenError> {
    verify(token: token).flatMap { claims in
      claims.allows(room: room)
        ? .success(claims)
        : .failure(TokenError(.forbidden, "this token is for another room"))
    }
  }

  private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
  }

  /// Verifies a `refresh`: a token for the same `sub` as `current` that still covers `room`.
  /// Its role (and name, colour, presence) may differ and apply at once. A refused refresh
  /// leaves the connection with `current`'s rights until they expire (the server answers
  /// `error unauthorized` and does not close).
  public func verifyRefresh(token: String?, current: TokenClaims, room: String) -> Result<TokenClaims, TokenError> {
    verify(token: token, forRoom: room).flatMap { claims in
      claims.subject == current.subject
        ? .success(claims)
        : .failure(TokenError(.subjectMismatch, "a refresh must be for the same sub as the connection's token"))
    }
  }

  /// libjwt refused a token whose header passed: its claims are not a JSON object, or its
  /// signature does not match.
  private func explainRefusal(payload: ArraySlice<UInt8>) -> TokenError {
    guard let json = Base64URL.decode(payload),
      (try? JSONSerialization.jsonObject(with: Data(json))) is [String: Any]
    else {
      return TokenError(.malformed, "the claims part is not a JSON object")
    }
    return TokenError(.badSignature, "the signature does not match (signed with another key, or changed)")
  }
}
