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
