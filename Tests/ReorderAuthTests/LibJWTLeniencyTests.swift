import Testing

@testable import ReorderAuth

/// What libjwt 1.10 accepts on its own: the reasons `TokenVerifier` checks around it. If one of
/// these starts failing, libjwt became stricter and the matching check is merely redundant.
@Suite("libjwt 1.10 alone accepts tokens the verifier must refuse")
struct LibJWTLeniencyTests {
  private let keys = TestKeys.shared

  @Test("an HS256 token signed with the PEM public key verifies as HS256 (algorithm confusion)")
  func algorithmConfusion() throws {
    let pem = keys.contents(keys.ecPublic)
    let token = Forge.hs256(secret: pem)
    let decoded = try #require(DecodedJWT.decode(token, key: pem))
    #expect(decoded.algorithm == TokenAlgorithm.hs256.libjwt)
    #expect(try Verifiers.es256().verify(token: token).failureReason == .unsupportedAlgorithm)
  }

  @Test("alg in lower case is accepted")
  func caseInsensitiveAlgorithm() throws {
    let token = Forge.hs256(header: #"{"alg":"hs256"}"#, secret: keys.secret)
    #expect(DecodedJWT.decode(token, key: keys.secret) != nil)
    #expect(Verifiers.hs256().verify(token: token).failureReason == .unsupportedAlgorithm)
  }

  @Test("a crit header is ignored")
  func critIgnored() throws {
    let token = Forge.hs256(header: #"{"alg":"HS256","crit":["exp"]}"#, secret: keys.secret)
    let decoded = try #require(DecodedJWT.decode(token, key: keys.secret))
    #expect(decoded.headerJSON("crit") == #"["exp"]"#)
    #expect(Verifiers.hs256().verify(token: token).failureReason == .critHeader)
  }

  @Test("standard base64 (+ and /) is accepted in place of base64url")
  func standardBase64() throws {
    // {"alg":"HS256","typ":"JWT","x":"???"} has '/' in its standard encoding where base64url has '_'.
    let urlSafe = Forge.b64(#"{"alg":"HS256","typ":"JWT","x":"???"}"#)
    #expect(urlSafe.contains("_"))
    let standard = urlSafe.replacingOccurrences(of: "_", with: "/")
    let token = Forge.hs256(encodedHeader: standard, encodedClaims: Forge.b64(Forge.claims()), secret: keys.secret)
    #expect(DecodedJWT.decode(token, key: keys.secret) != nil)
    #expect(Verifiers.hs256().verify(token: token).failureReason == .malformed)
  }

  @Test("claims that are a JSON array are accepted")
  func arrayClaims() throws {
    let token = Forge.hs256(claims: #"[1,2]"#, secret: keys.secret)
    #expect(DecodedJWT.decode(token, key: keys.secret) != nil)
    #expect(Verifiers.hs256().verify(token: token).failureReason == .malformed)
  }

  @Test("libcrypto's check with the key parsed once agrees with libjwt's on ES256 and RS256")
  func publicKeyGateAgreesWithLibJWT() throws {
    let signers: [(TokenAlgorithm, String, String, Bool)] = [
      (.es256, keys.ecPrivate, keys.ecPublic, true), (.rs256, keys.rsaPrivate, keys.rsaPublic, false),
    ]
    for (algorithm, privateKey, publicKey, ecdsa) in signers {
      let pem = keys.contents(publicKey)
      let gate = try #require(PublicKeyGate(pem: pem, algorithm: algorithm))
      let header = #"{"alg":"\#(algorithm.rawValue)","typ":"JWT"}"#
      let good = try Forge.pem(header: header, privateKey: privateKey, ecdsa: ecdsa)
      let parts = good.split(separator: ".").map(String.init)
      let tampered = parts[0] + "." + Forge.b64(Forge.claims(["room": "*"])) + "." + parts[2]
      let otherKey = try Forge.pem(header: header, privateKey: keys.otherECPrivate, ecdsa: true)
      for (token, valid) in [(good, true), (tampered, false), (otherKey, false)] {
        let tokenParts = token.split(separator: ".").map { Array($0.utf8) }
        let signature = try #require(Base64URL.decode(tokenParts[2][...]))
        let signingInput = Array(token.utf8).prefix(tokenParts[0].count + 1 + tokenParts[1].count)
        #expect(gate.matches(signature: signature, signingInput: signingInput) == valid, "\(algorithm) \(valid)")
        #expect((DecodedJWT.decode(token, key: pem) != nil) == valid, "libjwt \(algorithm) \(valid)")
      }
    }
    #expect(PublicKeyGate(pem: keys.contents(keys.ecPublic), algorithm: .rs256) == nil)
    #expect(PublicKeyGate.derECDSA(raw: [UInt8](repeating: 1, count: 63)) == nil)
  }

  @Test("with a key given, alg none is refused by libjwt itself")
  func noneWithKey() {
    let token = Forge.b64(#"{"alg":"none"}"#) + "." + Forge.b64(Forge.claims()) + "."
    #expect(DecodedJWT.decode(token, key: keys.secret) == nil)
  }
}

extension Result where Failure == TokenError {
  /// The reason of a failure, nil on success.
  var failureReason: TokenError.Reason? {
    if case .failure(let error) = self { return error.reason }
    return nil
  }
}

@Suite("The verifier's fast path")
struct VerifierFastPathTests {
  @Test("every header that skips parsing is one the full header check accepts", arguments: TokenAlgorithm.allCases)
  func commonHeadersPassTheCheck(_ algorithm: TokenAlgorithm) throws {
    let keys = TestKeys.shared
    let key: TokenKey =
      switch algorithm {
      case .hs256: .secret(keys.secret)
      case .es256: try TokenKey.publicKey(file: keys.ecPublic)
      case .rs256: try TokenKey.publicKey(file: keys.rsaPublic)
      }
    let verifier = TokenVerifier(key: key)
    #expect(verifier.commonHeaders.count == 3)
    for (header, index) in verifier.commonHeaders {
      #expect(verifier.checkHeader(header[...]) == .success(index), "\(String(decoding: header, as: UTF8.self))")
    }
  }

  @Test("with a key set, each header that skips parsing picks the key the full check picks")
  func keySetHeadersPickTheirKey() throws {
    let keys = TestKeys.shared
    let set = JSONWebKeySet(keys: [
      JSONWebKey(keyID: "hs", verificationKey: .secret(keys.secret)),
      JSONWebKey(keyID: "es", verificationKey: try TokenKey.publicKey(file: keys.ecPublic)),
      JSONWebKey(keyID: "rs", verificationKey: try TokenKey.publicKey(file: keys.rsaPublic)),
      JSONWebKey(keyID: #"needs "escaping""#, verificationKey: .secret(keys.secret)),
    ])
    let verifier = TokenVerifier(keys: set)
    #expect(verifier.commonHeaders.count == 3 * 8, "8 orders with kid for each key whose kid JSON writes as it is")
    for (header, index) in verifier.commonHeaders {
      #expect(verifier.checkHeader(header[...]) == .success(index), "\(String(decoding: header, as: UTF8.self))")
    }
    let one = TokenVerifier(
      keys: JSONWebKeySet(keys: [JSONWebKey(keyID: "only", verificationKey: .secret(keys.secret))]))
    #expect(one.commonHeaders.count == 3 + 8, "the only key is also picked by a header without kid")
  }
}
