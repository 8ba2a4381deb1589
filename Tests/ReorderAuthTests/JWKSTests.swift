import Foundation
import TestSupport
import Testing

@testable import ReorderAuth

/// Key pairs made by openssl once per run, and their JWKs read from `openssl pkey -text`.
struct JWKFixtures: Sendable {
  let directory: String
  let ecPrivate: String
  let ecPublic: String
  let otherECPrivate: String
  let rsaPrivate: String
  let rsaPublic: String
  let rsa1024Private: String
  let secret: [UInt8]

  static let shared: JWKFixtures = {
    do { return try JWKFixtures() } catch { fatalError("cannot make JWK fixtures with openssl: \(error)") }
  }()

  private init() throws {
    directory = NSTemporaryDirectory() + "reorder-jwks-tests-\(getpid())"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    ecPrivate = directory + "/ec.pem"
    ecPublic = directory + "/ec.pub.pem"
    otherECPrivate = directory + "/ec-other.pem"
    rsaPrivate = directory + "/rsa.pem"
    rsaPublic = directory + "/rsa.pub.pem"
    rsa1024Private = directory + "/rsa1024.pem"
    try OpenSSLKeys.makeEC(ecPrivate)
    try OpenSSLKeys.run(["pkey", "-in", ecPrivate, "-pubout", "-out", ecPublic])
    try OpenSSLKeys.makeEC(otherECPrivate)
    try OpenSSLKeys.makeRSA(rsaPrivate)
    try OpenSSLKeys.run(["pkey", "-in", rsaPrivate, "-pubout", "-out", rsaPublic])
    try OpenSSLKeys.makeRSA(rsa1024Private, bits: 1024)
    secret = Array("a 32-byte-or-longer HS256 secret for the JWKS tests".utf8)
  }

  func write(_ text: String, _ name: String) throws -> String {
    let path = directory + "/" + name
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  func set(_ keys: [[String: Any]]) throws -> JSONWebKeySet {
    try JSONWebKeySet.parse(Array(OpenSSLKeys.jwks(keys).utf8), path: "test.jwks")
  }
}

/// The DER inside a PEM text.
func derOf(pem: [UInt8]) -> [UInt8] {
  let body = String(decoding: pem, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
  return [UInt8](Data(base64Encoded: body) ?? Data())
}

@Suite("JWK → key bytes: the DER is byte for byte what openssl writes")
struct JWKDERTests {
  let fixtures = JWKFixtures.shared

  @Test("EC P-256: SubjectPublicKeyInfo and SEC1 ECPrivateKey")
  func ellipticCurve() throws {
    let key = try #require(try fixtures.set([OpenSSLKeys.jwk(privateKeyFile: fixtures.ecPrivate)]).keys.first)
    guard case .publicKey(let pem, .es256) = key.verificationKey,
      case .privateKey(let privatePEM, .es256) = key.signingKey
    else {
      Issue.record("\(key)")
      return
    }
    #expect(derOf(pem: pem) == (try OpenSSLKeys.der(["pkey", "-in", fixtures.ecPrivate, "-pubout"])))
    #expect(derOf(pem: privatePEM) == (try OpenSSLKeys.der(["ec", "-in", fixtures.ecPrivate])))
    #expect(String(decoding: privatePEM, as: UTF8.self).hasPrefix("-----BEGIN EC PRIVATE KEY-----\n"))
  }

  @Test("RSA: SubjectPublicKeyInfo and PKCS#1 RSAPrivateKey")
  func rsa() throws {
    let key = try #require(try fixtures.set([OpenSSLKeys.jwk(privateKeyFile: fixtures.rsaPrivate)]).keys.first)
    guard case .publicKey(let pem, .rs256) = key.verificationKey,
      case .privateKey(let privatePEM, .rs256) = key.signingKey
    else {
      Issue.record("\(key)")
      return
    }
    #expect(derOf(pem: pem) == (try OpenSSLKeys.der(["pkey", "-in", fixtures.rsaPrivate, "-pubout"])))
    #expect(derOf(pem: privatePEM) == (try OpenSSLKeys.der(["rsa", "-in", fixtures.rsaPrivate, "-traditional"])))
  }

  @Test("oct: k is the secret; a public-only JWK has no signing key")
  func octAndPublicOnly() throws {
    let set = try fixtures.set([
      OpenSSLKeys.octJWK(fixtures.secret, kid: "hs"),
      OpenSSLKeys.jwk(privateKeyFile: fixtures.ecPrivate, kid: "es", includePrivate: false),
    ])
    #expect(set.keys[0].verificationKey == .secret(fixtures.secret))
    #expect(set.keys[0].signingKey == .secret(fixtures.secret))
    #expect(set.keys[1].signingKey == nil)
    guard case .publicKey(let pem, .es256) = set.keys[1].verificationKey else {
      Issue.record("\(set.keys[1])")
      return
    }
    #expect(derOf(pem: pem) == derOf(pem: [UInt8](FileManager.default.contents(atPath: fixtures.ecPublic) ?? Data())))
  }

  @Test("DER integers: leading zeros dropped, a zero put back before a high bit; long lengths")
  func derBasics() {
    #expect(DER.integer(unsigned: [0, 0, 0x7F]) == [0x02, 0x01, 0x7F])
    #expect(DER.integer(unsigned: [0x80]) == [0x02, 0x02, 0x00, 0x80])
    #expect(DER.integer(unsigned: [0, 0]) == [0x02, 0x01, 0x00])
    #expect(DER.length(127) == [0x7F])
    #expect(DER.length(128) == [0x81, 0x80])
    #expect(DER.length(300) == [0x82, 0x01, 0x2C])
    // 1.2.840.10045.2.1, as RFC 5480 gives it.
    #expect(DER.objectIdentifier(DER.OID.ecPublicKey) == [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01])
  }
}

@Suite("JWKS round trips: libjwt signs with the JWK's private key, verifiers check with its public one")
struct JWKSRoundTripTests {
  let fixtures = JWKFixtures.shared

  private func claims() -> TokenClaims {
    TokenClaims(subject: "u-1", room: .exact("board-1"), role: .editor, expiresAt: Forge.now + 600, name: "Ann")
  }

  @Test("oct HS256: minted from the JWK, verified by the set, by the secret itself, and a hand-made token too")
  func oct() throws {
    let set = try fixtures.set([OpenSSLKeys.octJWK(fixtures.secret, kid: "hs-1", alg: "HS256")])
    let (signing, kid) = try set.signingKey(keyID: "hs-1", path: "t")
    #expect(kid == "hs-1")
    let token = TokenMinter(signingKey: signing, keyID: kid).mint(claims())
    #expect(try TokenVerifier(keys: set, now: { Forge.now }).verify(token: token, forRoom: "board-1").get() == claims())
    #expect(try TokenVerifier(key: .secret(fixtures.secret), now: { Forge.now }).verify(token: token).get() == claims())
    let forged = Forge.hs256(header: #"{"alg":"HS256","kid":"hs-1"}"#, secret: fixtures.secret)
    _ = try TokenVerifier(keys: set, now: { Forge.now }).verify(token: forged).get()
  }

  @Test("EC ES256 and RSA RS256, both ways, with libjwt and with openssl", arguments: ["EC", "RSA"])
  func publicKeys(_ kty: String) throws {
    let privateFile = kty == "EC" ? fixtures.ecPrivate : fixtures.rsaPrivate
    let publicFile = kty == "EC" ? fixtures.ecPublic : fixtures.rsaPublic
    let alg = kty == "EC" ? "ES256" : "RS256"
    let set = try fixtures.set([
      OpenSSLKeys.jwk(privateKeyFile: privateFile, kid: "k-\(kty)", alg: alg),
      OpenSSLKeys.octJWK(fixtures.secret, kid: "hs"),
    ])
    let verifier = TokenVerifier(keys: set, now: { Forge.now })
    // libjwt signs with the JWK's private key; the set, and openssl's own public key, verify it.
    let (signing, kid) = try set.signingKey(keyID: "k-\(kty)", path: "t")
    let minted = TokenMinter(signingKey: signing, keyID: kid).mint(claims())
    let header = try #require(Forge.unb64(String(minted.split(separator: ".")[0])))
    #expect(String(decoding: header, as: UTF8.self).contains(#""kid":"k-\#(kty)""#))
    #expect(String(decoding: header, as: UTF8.self).contains(#""alg":"\#(alg)""#))
    #expect(try verifier.verify(token: minted, forRoom: "board-1").get() == claims())
    let fromFile = TokenVerifier(key: try TokenKey.publicKey(file: publicFile), now: { Forge.now })
    #expect(try fromFile.verify(token: minted).get() == claims())
    // openssl signs with the PEM; the set verifies it, and so does libjwt with the JWK's public PEM.
    let signed = try Forge.pem(
      header: #"{"alg":"\#(alg)","kid":"k-\#(kty)","typ":"JWT"}"#, privateKey: privateFile, ecdsa: kty == "EC")
    _ = try verifier.verify(token: signed).get()
    guard case .publicKey(let pem, _) = set.keys[0].verificationKey else {
      Issue.record("\(set.keys[0])")
      return
    }
    #expect(DecodedJWT.decode(signed, key: pem) != nil, "libjwt verifies with the JWK's PEM")
    // Signed by another key under this kid: a bad signature.
    if kty == "EC" {
      let other = try Forge.pem(
        header: #"{"alg":"ES256","kid":"k-EC"}"#, privateKey: fixtures.otherECPrivate, ecdsa: true)
      #expect(verifier.verify(token: other).failureReason == .badSignature)
    }
  }

  @Test("minting needs the private parts: a public-only key, an unknown kid or no kid among several are refused")
  func mintingRefusals() throws {
    let set = try fixtures.set([
      OpenSSLKeys.jwk(privateKeyFile: fixtures.ecPrivate, kid: "pub", includePrivate: false),
      OpenSSLKeys.octJWK(fixtures.secret, kid: "hs"),
    ])
    for (kid, mention) in [("pub", "public only"), ("nope", "no key has kid"), (nil, "2 keys")] as [(String?, String)] {
      #expect {
        _ = try set.signingKey(keyID: kid, path: "t")
      } throws: { error in
        guard case .badKeySet(_, let detail) = error as? TokenConfigurationError else { return false }
        return detail.contains(mention)
      }
    }
    // d of one key with x, y of another: caught by the probe signature.
    var mixed = try OpenSSLKeys.jwk(privateKeyFile: fixtures.ecPrivate, kid: "mixed")
    mixed["d"] = try OpenSSLKeys.jwk(privateKeyFile: fixtures.otherECPrivate)["d"]
    #expect {
      _ = try fixtures.set([mixed]).signingKey(keyID: "mixed", path: "t")
    } throws: { error in
      (error as? TokenConfigurationError)?.description.contains("do not belong") == true
    }
  }
}

@Suite("A verifier over a key set: kid picks the key, the key's alg is the only one")
struct KeySetVerifierTests {
  let fixtures = JWKFixtures.shared
  let otherSecret = Array("another HS256 secret, 32 bytes or more, for kid 2".utf8)

  private func verifier() throws -> TokenVerifier {
    TokenVerifier(
      keys: try fixtures.set([
        OpenSSLKeys.octJWK(fixtures.secret, kid: "one"), OpenSSLKeys.octJWK(otherSecret, kid: "two", alg: "HS256"),
        OpenSSLKeys.jwk(privateKeyFile: fixtures.ecPrivate, kid: "three", includePrivate: false),
      ]), now: { Forge.now })
  }

  @Test("a token of each kid is accepted")
  func eachKid() throws {
    let verifier = try verifier()
    _ = try verifier.verify(token: Forge.hs256(header: #"{"alg":"HS256","kid":"one"}"#, secret: fixtures.secret)).get()
    _ = try verifier.verify(token: Forge.hs256(header: #"{"kid":"two","alg":"HS256"}"#, secret: otherSecret)).get()
    _ = try verifier.verify(
      token: Forge.pem(header: #"{"alg":"ES256","kid":"three"}"#, privateKey: fixtures.ecPrivate, ecdsa: true)
    ).get()
  }

  @Test("no kid, an unknown kid, a kid not a string, the wrong key for the kid, or another alg: refused, never echoed")
  func refusals() throws {
    let verifier = try verifier()
    let marker = "KID-MARKER-77"
    let cases: [(String, String, TokenError.Reason)] = [
      ("no kid", Forge.hs256(secret: fixtures.secret), .missingKeyID),
      (
        "unknown kid", Forge.hs256(header: #"{"alg":"HS256","kid":"\#(marker)"}"#, secret: fixtures.secret),
        .unknownKeyID
      ),
      ("kid a number", Forge.hs256(header: #"{"alg":"HS256","kid":7}"#, secret: fixtures.secret), .malformed),
      (
        "signed with kid one's secret, naming two",
        Forge.hs256(header: #"{"alg":"HS256","kid":"two"}"#, secret: fixtures.secret), .badSignature
      ),
      (
        "HS256 for the ES256 key", Forge.hs256(header: #"{"alg":"HS256","kid":"three"}"#, secret: fixtures.secret),
        .unsupportedAlgorithm
      ),
      (
        "ES256 for an HS256 key",
        try Forge.pem(header: #"{"alg":"ES256","kid":"one"}"#, privateKey: fixtures.ecPrivate, ecdsa: true),
        .unsupportedAlgorithm
      ),
      (
        "alg none", Forge.b64(#"{"alg":"none","kid":"one"}"#) + "." + Forge.b64(Forge.claims()) + ".",
        .unsupportedAlgorithm
      ),
    ]
    for (description, token, reason) in cases {
      guard case .failure(let error) = verifier.verify(token: token) else {
        Issue.record("\(description): accepted")
        continue
      }
      #expect(error.reason == reason, "\(description): \(error)")
      #expect(error.closeCode == 4401)
      #expect(!error.message.contains(marker), "\(description): \(error)")
    }
  }

  @Test("a set of one key with a kid: a token without kid uses it, one with another kid is refused")
  func oneKeyWithKid() throws {
    let verifier = TokenVerifier(
      keys: try fixtures.set([OpenSSLKeys.octJWK(fixtures.secret, kid: "solo")]), now: { Forge.now })
    _ = try verifier.verify(token: Forge.hs256(secret: fixtures.secret)).get()
    _ = try verifier.verify(token: Forge.hs256(header: #"{"alg":"HS256","kid":"solo"}"#, secret: fixtures.secret)).get()
    let other = Forge.hs256(header: #"{"alg":"HS256","kid":"gone"}"#, secret: fixtures.secret)
    #expect(verifier.verify(token: other).failureReason == .unknownKeyID)
    // One key without kid (the shorthands): a token's kid is not looked at.
    let shorthand = TokenVerifier(key: .secret(fixtures.secret), now: { Forge.now })
    _ = try shorthand.verify(token: other).get()
  }
}

@Suite("JWKS files that cannot be used say why")
struct BadJWKSTests {
  let fixtures = JWKFixtures.shared

  @Test("each bad set is a badKeySet naming the problem")
  func badSets() throws {
    let oct = OpenSSLKeys.octJWK(fixtures.secret)
    var offCurve = try OpenSSLKeys.jwk(privateKeyFile: fixtures.ecPrivate, includePrivate: false)
    offCurve["y"] = OpenSSLKeys.b64url([UInt8](repeating: 0x11, count: 32))
    var p384 = try OpenSSLKeys.jwk(privateKeyFile: fixtures.ecPrivate, includePrivate: false)
    p384["crv"] = "P-384"
    var rsaWithoutPrimes = try OpenSSLKeys.jwk(privateKeyFile: fixtures.rsaPrivate)
    rsaWithoutPrimes["p"] = nil
    let cases: [(String, String)] = [
      ("not json", "not JSON"),
      ("[1, 2]", "not a JSON object"),
      (#"{"kty":"oct","k":"x"}"#, "one JWK, not a set"),
      ("{}", #"no "keys""#),
      (#"{"keys":{}}"#, "not an array"),
      (#"{"keys":[]}"#, "empty"),
      (OpenSSLKeys.jwks([["kty": "OKP", "crv": "Ed25519", "x": "AA"]]), #"kty "OKP" is not supported"#),
      (OpenSSLKeys.jwks([["k": oct["k"]!]]), "no kty"),
      (OpenSSLKeys.jwks([p384]), #"crv "P-384" is not supported"#),
      (OpenSSLKeys.jwks([offCurve]), "not a point on P-256"),
      (
        OpenSSLKeys.jwks([OpenSSLKeys.octJWK(fixtures.secret, kid: "a"), OpenSSLKeys.octJWK(fixtures.secret, kid: "a")]
        ),
        #"two keys have kid "a""#
      ),
      (OpenSSLKeys.jwks([OpenSSLKeys.octJWK(fixtures.secret, kid: "a"), oct]), "key 2 has no kid"),
      (OpenSSLKeys.jwks([OpenSSLKeys.octJWK(fixtures.secret, alg: "HS512")]), "alg must be HS256, ES256 or RS256"),
      (
        OpenSSLKeys.jwks([try OpenSSLKeys.jwk(privateKeyFile: fixtures.ecPrivate, alg: "RS256")]),
        "alg RS256 does not fit kty EC"
      ),
      (OpenSSLKeys.jwks([OpenSSLKeys.octJWK(fixtures.secret, alg: "ES256")]), "alg ES256 does not fit kty oct"),
      (OpenSSLKeys.jwks([OpenSSLKeys.octJWK(Array(fixtures.secret.prefix(31)))]), "k has 31 bytes"),
      (OpenSSLKeys.jwks([["kty": "oct", "k": "a+b/"]]), "k is not unpadded base64url"),
      (OpenSSLKeys.jwks([try OpenSSLKeys.jwk(privateKeyFile: fixtures.rsa1024Private)]), "1024 bits"),
      (OpenSSLKeys.jwks([rsaWithoutPrimes]), "no p"),
      (OpenSSLKeys.jwks([oct.merging(["use": "enc"]) { $1 }]), #"use must be "sig""#),
      (OpenSSLKeys.jwks([oct.merging(["kid": 5]) { $1 }]), "kid must be a non-empty string"),
    ]
    for (text, mention) in cases {
      #expect {
        _ = try JSONWebKeySet.parse(Array(text.utf8), path: "keys.jwks")
      } throws: { error in
        guard case .badKeySet(let path, let detail) = error as? TokenConfigurationError else { return false }
        return path == "keys.jwks" && detail.contains(mention)
      }
    }
  }

  @Test("load takes exactly one key source; none means tokens are off")
  func loadSources() throws {
    let jwks = try fixtures.write(OpenSSLKeys.jwks([OpenSSLKeys.octJWK(fixtures.secret, kid: "a")]), "one.jwks")
    let secret = try fixtures.write(String(decoding: fixtures.secret, as: UTF8.self), "secret")
    #expect(try TokenVerifier.load(jwksFile: nil, secretFile: nil, publicKeyFile: nil) == nil)
    #expect(try TokenVerifier.load(jwksFile: jwks, secretFile: nil, publicKeyFile: nil)?.keys.map(\.keyID) == ["a"])
    #expect(try TokenVerifier.load(jwksFile: nil, secretFile: secret, publicKeyFile: nil)?.keys.count == 1)
    #expect(try TokenVerifier.load(jwksFile: nil, secretFile: nil, publicKeyFile: fixtures.ecPublic)?.keys.count == 1)
    #expect(throws: TokenConfigurationError.severalKeySources) {
      try TokenVerifier.load(jwksFile: jwks, secretFile: secret, publicKeyFile: nil)
    }
    #expect(throws: TokenConfigurationError.unreadable(path: fixtures.directory + "/nope")) {
      try TokenVerifier.load(jwksFile: fixtures.directory + "/nope", secretFile: nil, publicKeyFile: nil)
    }
  }
}
