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
    #expect(lines.contains { $0.contains("--auth-secret-file is required") }, "\(lines)")
    let (_, help) = try run(["--help"])
    #expect(help.contains { $0.contains("--auth-secret-file") && $0.contains("[$REORDER_AUTH_SECRET_FILE]") })
    #expect(!help.contains { $0.contains("REORDER_SECRET_FILE") }, "\(help)")
  }
}
