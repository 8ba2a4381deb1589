import Foundation
import ReorderAuth
import ReorderRooms
import TestSupport
import TestTokens
import Testing

@testable import ReorderServer
@testable import ReorderWebhooks

/// `ReorderService.reload()` (SIGHUP): the token secret, API keys, scrape keys and webhook secret
/// are read again and used from then on, open websockets stay, and a reload that fails changes
/// nothing.
@Suite("Reloading keys and secrets", .serialized)
struct ReloadTests {
  static let oldSecret = "old-secret-0123456789abcdef0123456789abcdef"
  static let newSecret = "new-secret-abcdefghijklmnopqrstuvwxyz012345"
  static let oldKey = "old-api-key-0123456789abcdefghijklmnopqrstuv"
  static let newKey = "new-api-key-abcdefghijklmnopqrstuvwxyz0123456"
  static let oldHookSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
  static let newHookSecret = "whsec_QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo="

  static func token(secret: String, sub: String) -> String {
    let claims = #"{"sub":"\#(sub)","room":"r","role":"editor","exp":\#(Int(Date().timeIntervalSince1970) + 600)}"#
    return HandMadeToken.hs256(claims: claims, secret: Array(secret.utf8))
  }

  /// Opens `/ws/r` and says hello with `token`; the welcome, or the close code when refused.
  static func join(on server: some RoomServer, token: String, client: String) throws -> (RoomClient?, UInt16?) {
    let c = try server.connect(room: "r")
    c.send(
      .object([
        ("type", .string("hello")), ("room", .string("r")), ("client", .string(client)), ("name", .string(client)),
        ("color", .string("#123456")), ("token", .string(token)),
      ]))
    guard (try? c.next(type: "welcome", timeout: 10)) != nil else { return (nil, c.waitForClose(timeout: 10)?.code) }
    return (c, nil)
  }

  func api(_ server: some RoomServer, key: String) throws -> Int {
    try server.get("/api/v1/boards", headers: ["Authorization": "Bearer \(key)"]).status
  }

  func reloads(_ server: some RoomServer, key: String) throws -> (success: Double?, failure: Double?) {
    let metrics = MetricsTests()
    let reply = try server.get("/metrics", headers: ["Authorization": "Bearer \(key)"])
    let samples = try metrics.parsed(reply.text)
    return (
      metrics.value(samples, "reorder_reloads_total{result=success}"),
      metrics.value(samples, "reorder_reloads_total{result=failure}")
    )
  }

  @Test("after a reload new joins and requests use the new secret and keys; the open websocket stays and edits")
  func newMaterialForNewConnections() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try directory.write("secret", Self.oldSecret)
    try directory.write("keys", Self.oldKey + "\n")
    try directory.write("hook", Self.newHookSecret + "\n")
    try directory.write("hook-old", Self.oldHookSecret + "\n")
    let receiver = try WebhookReceiver(secret: Self.newHookSecret)
    defer { receiver.stop() }
    let server = try InProcessServer { configuration in
      configuration.authSecretFile = directory.path + "/secret"
      configuration.apiKeyFile = directory.path + "/keys"
      configuration.metricsAuth = true
      configuration.webhookURL = receiver.url
      configuration.webhookSecretFile = directory.path + "/hook-old"
      configuration.webhookTiming = WebhookTiming(
        debounceSeconds: 0.1, maxWaitSeconds: 1, retryDelays: [0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2],
        attemptTimeoutSeconds: 5)
    }
    let (before, refused) = try Self.join(on: server, token: Self.token(secret: Self.oldSecret, sub: "a"), client: "a")
    let early = try #require(before, "closed \(String(describing: refused))")
    early.op("a:1", Ops.createList("l"))
    _ = try early.applied(id: "a:1")
    #expect(try reloads(server, key: Self.oldKey) == (0, 0), "both results are there before the first reload")

    try directory.write("secret", Self.newSecret)
    try directory.write("keys", Self.newKey + "\n")
    try FileManager.default.removeItem(atPath: directory.path + "/hook-old")
    try FileManager.default.copyItem(atPath: directory.path + "/hook", toPath: directory.path + "/hook-old")
    #expect(server.server.reload())

    #expect(try api(server, key: Self.oldKey) == 401)
    #expect(try api(server, key: Self.newKey) == 200)
    let (_, oldToken) = try Self.join(on: server, token: Self.token(secret: Self.oldSecret, sub: "b"), client: "b")
    #expect(oldToken == 4401, "a token of the old secret is refused")
    let (after, _) = try Self.join(on: server, token: Self.token(secret: Self.newSecret, sub: "c"), client: "c")
    #expect(after != nil, "a token of the new secret joins")
    early.op("a:2", Ops.insert("x", list: "l"))
    #expect(try early.applied(id: "a:2")["seq"] == .number(2), "the websocket opened before the reload edits on")
    #expect(
      server.waitUntil(timeout: 20) {
        receiver.deliveries.contains { $0.signatureOK && $0.body["to_seq"] as? Int == 2 }
      },
      "webhooks are signed with the new secret: \(receiver.deliveries.map(\.signatureOK))")
    #expect(try reloads(server, key: Self.newKey) == (1, 0))
    after?.close()
    early.close()
  }

  @Test("a reload with an unusable file keeps every old key and counts a failure")
  func failedReloadKeepsTheOldMaterial() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try directory.write("secret", Self.oldSecret)
    try directory.write("keys", Self.oldKey + "\n")
    let server = try InProcessServer { configuration in
      configuration.authSecretFile = directory.path + "/secret"
      configuration.apiKeyFile = directory.path + "/keys"
      configuration.metricsAuth = true
    }
    try directory.write("keys", Self.newKey + "\n")
    try directory.write("secret", "short")  // under 32 bytes: refused, so nothing changes
    #expect(!server.server.reload())
    #expect(try api(server, key: Self.oldKey) == 200, "the old API key still works")
    #expect(try api(server, key: Self.newKey) == 401, "the new one was not taken alone")
    let (kept, _) = try Self.join(on: server, token: Self.token(secret: Self.oldSecret, sub: "a"), client: "a")
    #expect(kept != nil, "tokens of the old secret still join")
    try FileManager.default.removeItem(atPath: directory.path + "/keys")
    try directory.write("secret", Self.newSecret)
    #expect(!server.server.reload(), "an unreadable key file fails the reload")
    #expect(try reloads(server, key: Self.oldKey) == (0, 2))
    kept?.close()
  }
}

/// Key rotation with a JWK Set: the acceptance of docs/DEPLOY.md's "Rotating keys and certificates".
@Suite("Reloading a JWK Set", .serialized)
struct JWKSReloadTests {
  @Test(
    "a set rotated to drop its first key: the new kid joins, the removed kid gets 4401, the open websocket edits on")
  func rotation() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let oldKey = directory.path + "/old.pem"
    let newKey = directory.path + "/new.pem"
    try OpenSSLKeys.makeEC(oldKey)
    try OpenSSLKeys.makeEC(newKey)
    func set(_ kids: [(String, String)], includePrivate: Bool) throws -> String {
      try OpenSSLKeys.jwks(
        kids.map { try OpenSSLKeys.jwk(privateKeyFile: $0.1, kid: $0.0, includePrivate: includePrivate) })
    }
    let both = [("k-old", oldKey), ("k-new", newKey)]
    let signing = try JSONWebKeySet.parse(Array(try set(both, includePrivate: true).utf8), path: "private")
    func token(_ kid: String, sub: String) throws -> String {
      let (key, keyID) = try signing.signingKey(keyID: kid, path: "private")
      return TokenMinter(signingKey: key, keyID: keyID).mint(
        TokenClaims(subject: sub, room: .exact("r"), role: .editor, expiresAt: TokenVerifier.systemClock() + 600))
    }
    try directory.write("keys.jwks", try set(both, includePrivate: false))
    let path = directory.path + "/keys.jwks"
    let server = try InProcessServer { $0.authJWKSFile = path }

    let (opened, _) = try ReloadTests.join(on: server, token: try token("k-old", sub: "a"), client: "a")
    let early = try #require(opened, "a token of k-old joins before the rotation")
    early.op("a:1", Ops.createList("l"))
    _ = try early.applied(id: "a:1")

    try directory.write("keys.jwks", try set([("k-new", newKey)], includePrivate: false))
    #expect(server.server.reload())
    let (_, removed) = try ReloadTests.join(on: server, token: try token("k-old", sub: "b"), client: "b")
    #expect(removed == 4401, "a token of the removed kid")
    let (fresh, _) = try ReloadTests.join(on: server, token: try token("k-new", sub: "c"), client: "c")
    #expect(fresh != nil, "a token of the new kid joins")
    early.op("a:2", Ops.insert("x", list: "l"))
    #expect(try early.applied(id: "a:2")["seq"] == .number(2), "the websocket opened before the reload edits on")

    try directory.write("keys.jwks", #"{"keys":[{"kty":"EC","crv":"P-384"}]}"#)
    #expect(!server.server.reload(), "a bad set is refused")
    let (still, _) = try ReloadTests.join(on: server, token: try token("k-new", sub: "d"), client: "d")
    #expect(still != nil, "and the set in use stays")
    fresh?.close()
    still?.close()
    early.close()
  }
}
