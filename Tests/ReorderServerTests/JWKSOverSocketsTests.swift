import Foundation
import ReorderAuth
import ReorderBasics
import ReorderRooms
import TestSupport
import TestTokens
import Testing

@testable import ReorderServer

/// A node with `--auth-jwks-file` (in-process; `reorder serve` as a process for its refusals): keys
/// that rotate, a token's `kid` picking its key.
@Suite("Room tokens with a JWK Set", .serialized)
struct JWKSOverSocketsTests {
  static let secret = Array("the HS256 key of kid hs-old, 32 bytes or more".utf8)

  /// A node whose JWKS holds an `oct` key (kid hs-old) and an EC P-256 public key (kid es-new),
  /// and the private set that mints for both.
  final class JWKSServer {
    let directory: TemporaryDirectory
    let server: InProcessServer
    let signing: JSONWebKeySet

    init() throws {
      directory = try TemporaryDirectory()
      let ecPrivate = directory.path + "/ec.pem"
      try OpenSSLKeys.makeEC(ecPrivate)
      let oct = OpenSSLKeys.octJWK(JWKSOverSocketsTests.secret, kid: "hs-old", alg: "HS256")
      try directory.write(
        "keys.jwks",
        OpenSSLKeys.jwks([oct, try OpenSSLKeys.jwk(privateKeyFile: ecPrivate, kid: "es-new", includePrivate: false)]))
      signing = try JSONWebKeySet.parse(
        Array(OpenSSLKeys.jwks([oct, try OpenSSLKeys.jwk(privateKeyFile: ecPrivate, kid: "es-new")]).utf8),
        path: "private")
      let path = directory.path + "/keys.jwks"
      server = try InProcessServer { $0.authJWKSFile = path }
    }

    deinit { directory.remove() }

    /// A token for room `t` signed with the key of `kid`.
    func token(kid: String, sub: String = "u") throws -> String {
      let (key, keyID) = try signing.signingKey(keyID: kid, path: "private")
      let claims = TokenClaims(
        subject: sub, room: .exact("t"), role: .editor, expiresAt: TokenVerifier.systemClock() + 600)
      return TokenMinter(signingKey: key, keyID: keyID).mint(claims)
    }
  }

  @Test("a token of each kid joins; an unknown kid, or no kid, is closed 4401 with error unauthorized")
  func eachKidJoins() throws {
    let server = try JWKSServer()
    for kid in ["hs-old", "es-new"] {
      let client = try server.server.connect(room: "t")
      try client.hello(room: "t", client: kid, token: try server.token(kid: kid, sub: kid))
      #expect(client.welcome["role"] == .string("editor"), "\(kid)")
      client.close()
    }
    let unknown = HandMadeToken.hs256(
      header: #"{"alg":"HS256","kid":"hs-gone"}"#,
      claims: #"{"sub":"u","room":"t","role":"editor","exp":\#(TokenVerifier.systemClock() + 600)}"#,
      secret: Self.secret)
    let noKid = HandMadeToken.hs256(
      claims: #"{"sub":"u","room":"t","role":"editor","exp":\#(TokenVerifier.systemClock() + 600)}"#,
      secret: Self.secret)
    for token in [unknown, noKid] {
      let client = try server.server.connect(room: "t")
      client.send(
        .object([
          ("type", .string("hello")), ("room", .string("t")), ("client", .string("x")), ("name", .string("X")),
          ("color", .string("#123456")), ("token", .string(token)),
        ]))
      let close = client.waitForClose(timeout: 10)
      #expect(close?.code == 4401, "\(String(describing: close))")
      let error = client.buffer.first { $0["type"] == .string("error") }
      #expect(error?["code"] == .string("unauthorized"))
      let message = error?["message"]?.stringValue ?? ""
      #expect(!message.isEmpty && !message.contains("hs-gone"), "the kid is not echoed: \(message)")
    }
  }

  @Test("the key material is one reloadable load: the configuration's verifier re-reads the file")
  func reloadReadsTheFileAgain() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try directory.write("keys.jwks", OpenSSLKeys.jwks([OpenSSLKeys.octJWK(Self.secret, kid: "a")]))
    var configuration = ServerConfiguration()
    configuration.authJWKSFile = directory.path + "/keys.jwks"
    #expect(try configuration.tokenVerifier?.keys.map(\.keyID) == ["a"])
    try directory.write(
      "keys.jwks",
      OpenSSLKeys.jwks([OpenSSLKeys.octJWK(Self.secret, kid: "a"), OpenSSLKeys.octJWK(Self.secret, kid: "b")]))
    #expect(try configuration.tokenVerifier?.keys.map(\.keyID) == ["a", "b"])
    try directory.write("keys.jwks", "{")
    #expect(throws: ConfigurationError.self) { try configuration.tokenVerifier }
  }

  @Test("reorder serve with a bad JWKS, or with a JWKS and another key, exits 2 naming the problem")
  func badJWKSExits2() throws {
    let binary = try #require(ChildProcess.builtProduct("reorder"))
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try directory.write("secret", String(decoding: Self.secret, as: UTF8.self))
    let good = OpenSSLKeys.jwks([OpenSSLKeys.octJWK(Self.secret, kid: "a")])
    let cases: [(String, String)] = [
      ("not json", "not JSON"),
      (#"{"kid":"x"}"#, #"no "keys""#),
      (OpenSSLKeys.jwks([["kty": "OKP", "kid": "a"]]), "kty"),
      (OpenSSLKeys.jwks([["kty": "EC", "crv": "P-384", "x": "AA", "y": "AA"]]), "P-384"),
      (
        OpenSSLKeys.jwks([OpenSSLKeys.octJWK(Self.secret, kid: "a"), OpenSSLKeys.octJWK(Self.secret, kid: "a")]),
        "two keys"
      ),
      (OpenSSLKeys.jwks([OpenSSLKeys.octJWK(Self.secret, kid: "a"), OpenSSLKeys.octJWK(Self.secret)]), "no kid"),
      (OpenSSLKeys.jwks([OpenSSLKeys.octJWK(Self.secret, alg: "RS256")]), "does not fit"),
      (OpenSSLKeys.jwks([OpenSSLKeys.octJWK(Self.secret, alg: "none")]), "alg must be"),
    ]
    for (index, (text, mention)) in cases.enumerated() {
      try directory.write("bad\(index).jwks", text)
      let child = try ChildProcess(
        executable: binary,
        arguments: [
          "serve", "--port", "0", "--data", ":memory:", "--auth-jwks-file", directory.path + "/bad\(index).jwks",
        ])
      #expect(child.waitForExit(timeout: 10) == 2, "\(text)")
      #expect(child.output.contains { $0.contains("JWK Set") && $0.contains(mention) }, "\(text): \(child.output)")
    }
    try directory.write("good.jwks", good)
    let both = try ChildProcess(
      executable: binary,
      arguments: [
        "serve", "--port", "0", "--data", ":memory:", "--auth-jwks-file", directory.path + "/good.jwks",
        "--auth-secret-file", directory.path + "/secret",
      ])
    #expect(both.waitForExit(timeout: 10) == 2)
    #expect(both.output.contains { $0.contains("--auth-jwks-file") && $0.contains("not") }, "\(both.output)")
    let fromEnvironment = try ChildProcess(
      executable: binary, arguments: ["serve", "--port", "0", "--data", ":memory:", "--host", "0.0.0.0"],
      environment: ["REORDER_AUTH_JWKS_FILE": directory.path + "/bad0.jwks"])
    #expect(fromEnvironment.waitForExit(timeout: 10) == 2, "REORDER_AUTH_JWKS_FILE is read")
    #expect(fromEnvironment.output.contains { $0.contains("not JSON") }, "\(fromEnvironment.output)")
  }
}
