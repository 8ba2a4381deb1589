import Foundation
import ReorderAuth
import TestSupport
import Testing

/// `reorder token` as a user runs it: what it prints verifies, and wrong flags exit 2.
@Suite("reorder token, the executable", .serialized)
struct TokenCommandTests {
  private let keys = TestKeys.shared

  private func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (
    status: Int32?, lines: [String]
  ) {
    let binary = try #require(ChildProcess.builtProduct("reorder"), "build the reorder product first (swift build)")
    let child = try ChildProcess(executable: binary, arguments: ["token"] + arguments, environment: environment)
    let status = child.waitForExit(timeout: 20)
    return (status, child.output)
  }

  @Test("prints a token the verifier accepts, with every claim asked for, and a share link")
  func mintsVerifiableToken() throws {
    let (status, lines) = try run([
      "--secret-file", keys.secretFile, "--room", "board-1", "--role", "viewer", "--sub", "u-9", "--name", "Cy",
      "--color", "#00aa00", "--ttl", "15m", "--presence", "false", "--url", "http://127.0.0.1:8080/",
    ])
    #expect(status == 0, "\(lines)")
    #expect(lines.count == 2, "\(lines)")
    let token = try #require(lines.first)
    let before = TokenVerifier.systemClock()
    let claims = try TokenVerifier(key: .secret(keys.secret)).verify(token: token, forRoom: "board-1").get()
    #expect(claims.subject == "u-9" && claims.role == .viewer && claims.room == .exact("board-1"))
    #expect(claims.name == "Cy" && claims.color == "#00aa00" && !claims.presence)
    let ttl = claims.expiresAt - (claims.issuedAt ?? 0)
    #expect(ttl == 900)
    #expect(abs((claims.issuedAt ?? 0) - before) <= 30)
    #expect(lines.last == "http://127.0.0.1:8080/#/b/board-1?token=\(token)")
  }

  @Test("a prefix room and the defaults: editor-less flags give an hour, presence on, no link")
  func prefixRoomDefaults() throws {
    let (status, lines) = try run([
      "--secret-file", keys.secretFile, "--room", "team-a-*", "--role", "editor", "--sub", "s",
      "--audience", "reorder", "--issuer", "https://app.example",
    ])
    #expect(status == 0, "\(lines)")
    let token = try #require(lines.first)
    let verifier = TokenVerifier(key: .secret(keys.secret), audience: "reorder", issuer: "https://app.example")
    let claims = try verifier.verify(token: token, forRoom: "team-a-7").get()
    #expect(claims.expiresAt - (claims.issuedAt ?? 0) == 3_600)
    #expect(claims.presence && claims.role == .editor)
    #expect(lines.count == 1)
  }

  @Test("wrong flags are explained and exit with status 2")
  func usageErrors() throws {
    let short = keys.directory + "/short-secret"
    try Data("too short\n".utf8).write(to: URL(fileURLWithPath: short))
    let base = ["--secret-file", keys.secretFile, "--room", "r", "--role", "editor", "--sub", "s"]
    let cases: [([String], String)] = [
      (["--room", "r", "--role", "editor", "--sub", "s"], "--auth-secret-file"),
      (["--secret-file", keys.secretFile, "--role", "editor", "--sub", "s"], "--room"),
      (["--secret-file", keys.secretFile, "--room", "r", "--sub", "s"], "--role"),
      (["--secret-file", keys.secretFile, "--room", "r", "--role", "editor"], "--sub"),
      (base + ["--role", "owner"], "--role"),
      (base + ["--ttl", "2y"], "--ttl"),
      (base + ["--ttl", "soon"], "--ttl"),
      (base + ["--presence", "maybe"], "--presence"),
      (base + ["--room", "a/b"], "--room"),
      (base + ["--bogus"], "--bogus"),
      (base + ["--color", "red;<b>"], "--color"),
      (base + ["--name", ""], "--name"),
      (base + ["--url", "ws://127.0.0.1:8080"], "--url"),
      (base + ["--room", "team-*", "--url", "http://127.0.0.1:8080"], "--url"),
      (["--secret-file", short, "--room", "r", "--role", "editor", "--sub", "s"], "at least 32"),
      (["--secret-file", keys.directory + "/missing", "--room", "r", "--role", "editor", "--sub", "s"], "cannot read"),
    ]
    for (arguments, mention) in cases {
      let (status, lines) = try run(arguments)
      #expect(status == 2, "\(arguments): \(lines)")
      #expect(lines.contains { $0.contains(mention) }, "\(arguments) printed \(lines)")
    }
  }

  @Test("a prefix --room with --url prints only the error, no token, and exits 2")
  func prefixRoomWithURLPrintsNoToken() throws {
    let (status, lines) = try run([
      "--secret-file", keys.secretFile, "--room", "food-*", "--role", "editor", "--sub", "s",
      "--url", "http://127.0.0.1:8080",
    ])
    #expect(status == 2, "\(lines)")
    #expect(lines.contains { $0.contains("--url") }, "\(lines)")
    #expect(!lines.contains { $0.hasPrefix("eyJ") || $0.contains("token=") }, "a token was printed: \(lines)")
  }

  @Test("the secret file comes from --auth-secret-file, --secret-file or $REORDER_AUTH_SECRET_FILE")
  func secretFileNames() throws {
    let rest = ["--room", "board-1", "--role", "editor", "--sub", "s"]
    for (arguments, environment) in [
      (["--auth-secret-file", keys.secretFile] + rest, [String: String]()),
      (["--secret-file", keys.secretFile] + rest, [:]),
      (rest, ["REORDER_AUTH_SECRET_FILE": keys.secretFile]),
    ] {
      let (status, lines) = try run(arguments, environment: environment)
      #expect(status == 0, "\(arguments) \(environment): \(lines)")
      let token = try #require(lines.first)
      _ = try Verifiers.hs256(now: TokenVerifier.systemClock()).verify(token: token, forRoom: "board-1").get()
    }
    // The old name of the variable is not read; --secret-file has none of its own.
    let (status, lines) = try run(rest, environment: ["REORDER_SECRET_FILE": keys.secretFile])
    #expect(status == 2, "\(lines)")
    #expect(lines.contains { $0.contains("--auth-secret-file") && $0.contains("is required") }, "\(lines)")
    let (_, help) = try run(["--help"])
    #expect(help.contains { $0.contains("--auth-secret-file") && $0.contains("[$REORDER_AUTH_SECRET_FILE]") })
    #expect(!help.contains { $0.contains("REORDER_SECRET_FILE") }, "\(help)")
  }

  @Test("--auth-jwks-file F --kid K mints with that key (ES256, RS256 or HS256), kid in the header")
  func mintsWithAJWKSKey() throws {
    let fixtures = JWKFixtures.shared
    let privateSet = try fixtures.write(
      OpenSSLKeys.jwks([
        OpenSSLKeys.jwk(privateKeyFile: fixtures.ecPrivate, kid: "es-2025"),
        OpenSSLKeys.jwk(privateKeyFile: fixtures.rsaPrivate, kid: "rs-2025", alg: "RS256"),
        OpenSSLKeys.octJWK(fixtures.secret, kid: "hs-2025"),
      ]), "private.jwks")
    // What serve is given: the same kids, EC and RSA without their private parts.
    let servedSet = try JSONWebKeySet.parse(
      Array(
        OpenSSLKeys.jwks([
          OpenSSLKeys.jwk(privateKeyFile: fixtures.ecPrivate, kid: "es-2025", includePrivate: false),
          OpenSSLKeys.jwk(privateKeyFile: fixtures.rsaPrivate, kid: "rs-2025", includePrivate: false),
          OpenSSLKeys.octJWK(fixtures.secret, kid: "hs-2025"),
        ]).utf8), path: "served")
    let verifier = TokenVerifier(keys: servedSet)
    let rest = ["--room", "board-1", "--role", "editor", "--sub", "s", "--url", "http://127.0.0.1:8080"]
    for (kid, alg) in [("es-2025", "ES256"), ("rs-2025", "RS256"), ("hs-2025", "HS256")] {
      for flag in ["--auth-jwks-file", "--jwks-file"] {
        let (status, lines) = try run([flag, privateSet, "--kid", kid] + rest)
        #expect(status == 0, "\(kid): \(lines)")
        #expect(lines.count == 2, "\(lines)")
        let token = try #require(lines.first)
        let header = String(decoding: Forge.unb64(String(token.split(separator: ".")[0])) ?? [], as: UTF8.self)
        #expect(header.contains(#""kid":"\#(kid)""#) && header.contains(#""alg":"\#(alg)""#), "\(header)")
        _ = try verifier.verify(token: token, forRoom: "board-1").get()
      }
    }
    let (status, lines) = try run(
      ["--kid", "es-2025"] + rest, environment: ["REORDER_AUTH_JWKS_FILE": privateSet])
    #expect(status == 0, "from $REORDER_AUTH_JWKS_FILE: \(lines)")
  }

  @Test(
    "JWKS refusals print only the error and exit 2: no --kid among several, a public-only key, a bad set, both sources")
  func jwksRefusals() throws {
    let fixtures = JWKFixtures.shared
    let publicOnly = try fixtures.write(
      OpenSSLKeys.jwks([
        OpenSSLKeys.jwk(privateKeyFile: fixtures.ecPrivate, kid: "es", includePrivate: false),
        OpenSSLKeys.octJWK(fixtures.secret, kid: "hs"),
      ]), "public-only.jwks")
    let bad = try fixtures.write(#"{"keys":[{"kty":"OKP"}]}"#, "bad.jwks")
    let rest = ["--room", "board-1", "--role", "editor", "--sub", "s"]
    let cases: [([String], String)] = [
      (["--auth-jwks-file", publicOnly] + rest, "--kid is required"),
      (["--auth-jwks-file", publicOnly, "--kid", "es"] + rest, "public only"),
      (["--auth-jwks-file", publicOnly, "--kid", "gone"] + rest, "no key has kid"),
      (["--auth-jwks-file", bad, "--kid", "x"] + rest, "kty"),
      (["--auth-jwks-file", publicOnly, "--auth-secret-file", keys.secretFile, "--kid", "hs"] + rest, "not both"),
    ]
    for (arguments, mention) in cases {
      let (status, lines) = try run(arguments)
      #expect(status == 2, "\(arguments): \(lines)")
      #expect(lines.contains { $0.contains(mention) }, "\(arguments) printed \(lines)")
      #expect(!lines.contains { $0.hasPrefix("eyJ") }, "a token was printed: \(lines)")
    }
  }
}
