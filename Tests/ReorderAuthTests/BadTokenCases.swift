import Foundation
import ReorderAuth

/// Every way a token is refused that docs/AUTH.md lists, each wrong in exactly one way.
enum BadTokenCases {
  static var all: [BadToken] {
    structure + header + signature + claims + times + scope + publicKeys + keySet + refreshes
  }

  /// A connection's current claims: user-1 in board-1.
  static let current = TokenClaims(subject: "user-1", room: .exact("board-1"), role: .viewer, expiresAt: Forge.now + 30)

  static var refreshes: [BadToken] {
    [
      BadToken("a refresh for another sub", hs(Forge.claims(["sub": "user-2"])), .subjectMismatch, refreshing: current),
      BadToken("a refresh for another room", hs(Forge.claims(["room": "board-2"])), .forbidden, refreshing: current),
      BadToken("a refresh that is expired", hs(Forge.claims(["exp": Forge.now - 100])), .expired, refreshing: current),
      BadToken(
        "a refresh with a bad signature", Forge.hs256(secret: Array("k".utf8)), .badSignature, refreshing: current),
      BadToken("a refresh with no token", nil, .missing, refreshing: current),
    ]
  }

  /// Against a set of two HS256 keys, kids k1 (the tests' secret) and k2 (another).
  static var keySet: [BadToken] {
    [
      BadToken("no kid against a set of two keys", hs(), .missingKeyID, against: .keySet),
      BadToken("a kid no key has", hs(header: #"{"alg":"HS256","kid":"k3"}"#), .unknownKeyID, against: .keySet),
      BadToken(
        "kid k2, signed with k1's secret", hs(header: #"{"alg":"HS256","kid":"k2"}"#), .badSignature, against: .keySet),
      BadToken(
        "kid k1, alg ES256", hs(header: #"{"alg":"ES256","kid":"k1"}"#), .unsupportedAlgorithm, against: .keySet),
    ]
  }

  private static var secret: [UInt8] { TestKeys.shared.secret }
  private static func hs(_ claims: String = Forge.claims(), header: String = Forge.hs256Header) -> String {
    Forge.hs256(header: header, claims: claims, secret: secret)
  }

  static var structure: [BadToken] {
    let good = hs()
    let parts = good.split(separator: ".").map(String.init)
    return [
      BadToken("no token at all", nil, .missing),
      BadToken("an empty token", "", .missing),
      BadToken("one part", "eyJhbGciOiJIUzI1NiJ9", .malformed),
      BadToken("two parts", parts[0] + "." + parts[1], .malformed),
      BadToken("four parts", good + ".e30", .malformed),
      BadToken("a header that is not base64url (#)", "e#J." + parts[1] + "." + parts[2], .malformed),
      BadToken(
        "a header in standard base64 (+ and =)",
        Forge.hs256(encodedHeader: "eyJ+", encodedClaims: parts[1], secret: secret),
        .malformed),
      BadToken("a header of 4n+1 characters", "eyJhb." + parts[1] + "." + parts[2], .malformed),
      BadToken("a header that is not JSON", hs(header: "{alg:HS256}"), .malformed),
      BadToken("a header that is a JSON array", hs(header: #"["HS256"]"#), .malformed),
      BadToken("claims that are not base64url", parts[0] + ".e30!." + parts[2], .malformed),
      BadToken("claims that are not JSON, signed", hs("not json"), .malformed),
      BadToken("claims that are a JSON array, signed", hs(#"[{"sub":"a"}]"#), .malformed),
      BadToken("claims that are not JSON, unsigned", parts[0] + "." + Forge.b64("{") + "." + parts[2], .malformed),
      BadToken("a signature that is not base64url", parts[0] + "." + parts[1] + ".abc$", .malformed),
      BadToken("an empty signature", parts[0] + "." + parts[1] + ".", .malformed),
      BadToken("a 64 KiB token", good + String(repeating: "A", count: 64 * 1024), .tooLarge),
      BadToken("one byte over 8 KiB", String(repeating: "A", count: 8 * 1024 + 1), .tooLarge),
    ]
  }

  static var header: [BadToken] {
    let claims = Forge.b64(Forge.claims())
    return [
      BadToken(
        "alg none, unsigned", Forge.b64(#"{"alg":"none","typ":"JWT"}"#) + "." + claims + ".", .unsupportedAlgorithm),
      BadToken("alg None, signed anyway", hs(header: #"{"alg":"None"}"#), .unsupportedAlgorithm),
      BadToken("alg hs256 in lower case (libjwt accepts it)", hs(header: #"{"alg":"hs256"}"#), .unsupportedAlgorithm),
      BadToken("alg HS512", hs(header: #"{"alg":"HS512"}"#), .unsupportedAlgorithm),
      BadToken("alg RS256 against a secret", hs(header: #"{"alg":"RS256"}"#), .unsupportedAlgorithm),
      BadToken("an unknown alg", hs(header: #"{"alg":"XY999"}"#), .unsupportedAlgorithm),
      BadToken("no alg", hs(header: #"{"typ":"JWT"}"#), .unsupportedAlgorithm),
      BadToken("alg as a number", hs(header: #"{"alg":256}"#), .unsupportedAlgorithm),
      BadToken("crit naming exp", hs(header: #"{"alg":"HS256","crit":["exp"],"exp":1}"#), .critHeader),
      BadToken("an empty crit", hs(header: #"{"alg":"HS256","crit":[]}"#), .critHeader),
      BadToken(
        "b64 false with crit (RFC 7797)", hs(header: #"{"alg":"HS256","b64":false,"crit":["b64"]}"#), .critHeader),
      BadToken("typ other than JWT", hs(header: #"{"alg":"HS256","typ":"at+jwt"}"#), .malformed),
    ]
  }

  static var signature: [BadToken] {
    let good = hs()
    let parts = good.split(separator: ".").map(String.init)
    let other = Forge.hs256(
      claims: Forge.claims(["role": "viewer"]), secret: Array("another-secret-of-32-bytes-or-more!".utf8))
    let tampered = parts[0] + "." + Forge.b64(Forge.claims(["room": "*"])) + "." + parts[2]
    var flipped = Array(parts[2].utf8)
    flipped[3] = flipped[3] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
    return [
      BadToken("signed with another secret", other, .badSignature),
      BadToken("claims changed after signing", tampered, .badSignature),
      BadToken(
        "one signature character changed", parts[0] + "." + parts[1] + "." + String(decoding: flipped, as: UTF8.self),
        .badSignature),
      BadToken("a signature cut short", parts[0] + "." + parts[1] + "." + String(parts[2].prefix(40)), .badSignature),
      BadToken("signed with an empty secret", Forge.hs256(secret: []), .badSignature),
    ]
  }

  static var claims: [BadToken] {
    [
      BadToken("no sub", hs(Forge.claims(remove: ["sub"])), .missingClaim),
      BadToken("an empty sub", hs(Forge.claims(["sub": ""])), .missingClaim),
      BadToken("no room", hs(Forge.claims(remove: ["room"])), .missingClaim),
      BadToken("no role", hs(Forge.claims(remove: ["role"])), .missingClaim),
      BadToken("no exp", hs(Forge.claims(remove: ["exp"])), .missingClaim),
      BadToken("sub as a number", hs(Forge.claims(["sub": 42])), .invalidClaim),
      BadToken("exp as a string", hs(Forge.claims(["exp": "\(Forge.now + 60)"])), .invalidClaim),
      BadToken("nbf as a bool", hs(Forge.claims(["nbf": true])), .invalidClaim),
      BadToken("presence as a string", hs(Forge.claims(["presence": "false"])), .invalidClaim),
      BadToken("broadcast as a string", hs(Forge.claims(["broadcast": "false"])), .invalidClaim),
      BadToken("name as an object", hs(Forge.claims(["name": ["first": "Ann"]])), .invalidClaim),
      BadToken("room with * inside", hs(Forge.claims(["room": "team-*-a"])), .invalidClaim),
      BadToken("room with a slash", hs(Forge.claims(["room": "../etc"])), .invalidClaim),
      BadToken("room of 65 characters", hs(Forge.claims(["room": String(repeating: "r", count: 65)])), .invalidClaim),
      BadToken("a sub of 257 bytes", hs(Forge.claims(["sub": String(repeating: "s", count: 257)])), .invalidClaim),
      BadToken("an empty name", hs(Forge.claims(["name": ""])), .invalidClaim),
      BadToken("a name of 65 bytes", hs(Forge.claims(["name": String(repeating: "é", count: 33)])), .invalidClaim),
      BadToken("a color with markup", hs(Forge.claims(["color": "red;<b>"])), .invalidClaim),
      BadToken("a color of 33 bytes", hs(Forge.claims(["color": String(repeating: "a", count: 33)])), .invalidClaim),
      BadToken("role admin", hs(Forge.claims(["role": "admin"])), .unknownRole),
      BadToken("role Editor (case matters)", hs(Forge.claims(["role": "Editor"])), .unknownRole),
    ]
  }

  static var times: [BadToken] {
    [
      BadToken("expired an hour ago", hs(Forge.claims(["exp": Forge.now - 3600])), .expired),
      BadToken("expired 61 s ago (leeway is 60 s)", hs(Forge.claims(["exp": Forge.now - 61])), .expired),
      BadToken("nbf in an hour", hs(Forge.claims(["nbf": Forge.now + 3600])), .notYetValid),
      BadToken("nbf in 61 s (leeway is 60 s)", hs(Forge.claims(["nbf": Forge.now + 61])), .notYetValid),
    ]
  }

  static var scope: [BadToken] {
    let aud = Forge.claims(["aud": "reorder", "iss": "https://app.example"])
    return [
      BadToken("another exact room", hs(), .forbidden, room: "board-2"),
      BadToken("a room that only starts like it", hs(), .forbidden, room: "board-10"),
      BadToken("a room outside the prefix", hs(Forge.claims(["room": "team-a-*"])), .forbidden, room: "team-b-1"),
      BadToken("a room shorter than the prefix", hs(Forge.claims(["room": "team-a-*"])), .forbidden, room: "team-a"),
      BadToken(
        "the wrong aud", hs(Forge.claims(["aud": "other", "iss": "https://app.example"])), .wrongAudience,
        against: .hs256WithAudienceAndIssuer),
      BadToken(
        "an aud array without ours", hs(Forge.claims(["aud": ["a", "b"], "iss": "https://app.example"])),
        .wrongAudience, against: .hs256WithAudienceAndIssuer),
      BadToken(
        "no aud when one is required", hs(Forge.claims(["iss": "https://app.example"])), .wrongAudience,
        against: .hs256WithAudienceAndIssuer),
      BadToken(
        "the wrong iss", hs(Forge.claims(["aud": "reorder", "iss": "https://evil.example"])), .wrongIssuer,
        against: .hs256WithAudienceAndIssuer),
      BadToken(
        "no iss when one is required", hs(Forge.claims(["aud": "reorder"])), .wrongIssuer,
        against: .hs256WithAudienceAndIssuer),
      BadToken(
        "good aud and iss, but expired", hs(Forge.claims(["aud": "reorder", "iss": "https://app.example", "exp": 1])),
        .expired, against: .hs256WithAudienceAndIssuer),
      BadToken("good aud and iss, other room", hs(aud), .forbidden, against: .hs256WithAudienceAndIssuer, room: "x"),
    ]
  }

  static var publicKeys: [BadToken] {
    let keys = TestKeys.shared
    let claims = Forge.claims()
    // Algorithm confusion: an HS256 token whose HMAC secret is the server's public key file.
    let ecConfusion = Forge.hs256(claims: claims, secret: keys.contents(keys.ecPublic))
    let rsaConfusion = Forge.hs256(claims: claims, secret: keys.contents(keys.rsaPublic))
    let es = try! Forge.es256(claims: claims, privateKey: keys.ecPrivate)
    let rs = try! Forge.rs256(claims: claims, privateKey: keys.rsaPrivate)
    let esOther = try! Forge.es256(claims: claims, privateKey: keys.otherECPrivate)
    let esParts = es.split(separator: ".").map(String.init)
    let esTampered = esParts[0] + "." + Forge.b64(Forge.claims(["role": "editor", "room": "*"])) + "." + esParts[2]
    return [
      BadToken(
        "HS256 signed with the EC public key, against ES256", ecConfusion, .unsupportedAlgorithm, against: .es256),
      BadToken(
        "HS256 signed with the RSA public key, against RS256", rsaConfusion, .unsupportedAlgorithm, against: .rs256),
      BadToken("an ES256 token against a secret", es, .unsupportedAlgorithm),
      BadToken("an RS256 token against ES256", rs, .unsupportedAlgorithm, against: .es256),
      BadToken("an ES256 token against RS256", es, .unsupportedAlgorithm, against: .rs256),
      BadToken(
        "alg none against ES256", Forge.b64(#"{"alg":"none"}"#) + "." + Forge.b64(claims) + ".", .unsupportedAlgorithm,
        against: .es256),
      BadToken("ES256 signed by another key", esOther, .badSignature, against: .es256),
      BadToken("ES256 with changed claims", esTampered, .badSignature, against: .es256),
      BadToken(
        "ES256 with an RSA-sized signature", esParts[0] + "." + esParts[1] + "." + rs.split(separator: ".")[2],
        .badSignature, against: .es256),
      BadToken(
        "RS256 with crit",
        try! Forge.pem(header: #"{"alg":"RS256","crit":["x"]}"#, privateKey: keys.rsaPrivate, ecdsa: false),
        .critHeader, against: .rs256),
      BadToken(
        "RS256, expired", try! Forge.rs256(claims: Forge.claims(["exp": Forge.now - 120]), privateKey: keys.rsaPrivate),
        .expired, against: .rs256),
    ]
  }
}
