import Foundation
import ReorderAuth
import Testing

@Suite("Accepted tokens: HS256, ES256, RS256; rooms, roles, optional claims, leeway edges")
struct GoodTokenTests {
  private let secret = TestKeys.shared.secret

  private func accept(_ token: String, _ verifier: TokenVerifier, room: String = "board-1") throws -> TokenClaims {
    let result = verifier.verify(token: token, forRoom: room)
    if case .failure(let error) = result { Issue.record("refused: \(error)") }
    return try result.get()
  }

  @Test("an HS256 token made by hand gives its claims")
  func hs256ByHand() throws {
    let claims = try accept(Forge.hs256(secret: secret), Verifiers.hs256())
    #expect(claims.subject == "user-1")
    #expect(claims.room == .exact("board-1"))
    #expect(claims.role == .editor)
    #expect(claims.expiresAt == Forge.now + 3600)
    #expect(claims.presence && claims.broadcast && claims.name == nil && claims.color == nil && claims.notBefore == nil)
  }

  @Test("optional claims are read: nbf, iat, name, color, presence false, broadcast false, viewer")
  func optionalClaims() throws {
    let token = Forge.hs256(
      claims: Forge.claims([
        "nbf": Forge.now - 5, "iat": Forge.now - 5, "name": "Ann Ö", "color": "#ff8800", "presence": false,
        "broadcast": false, "role": "viewer", "extra": ["ignored": true],
      ]), secret: secret)
    let claims = try accept(token, Verifiers.hs256())
    #expect(claims.notBefore == Forge.now - 5 && claims.issuedAt == Forge.now - 5)
    #expect(claims.name == "Ann Ö" && claims.color == "#ff8800")
    #expect(!claims.presence)
    #expect(!claims.broadcast)
    #expect(claims.role == .viewer)
  }

  @Test("leeway edges: exp 60 s ago and nbf 60 s ahead are still accepted")
  func leewayEdges() throws {
    _ = try accept(Forge.hs256(claims: Forge.claims(["exp": Forge.now - 60]), secret: secret), Verifiers.hs256())
    _ = try accept(Forge.hs256(claims: Forge.claims(["nbf": Forge.now + 60]), secret: secret), Verifiers.hs256())
    let fractional = try accept(
      Forge.hs256(claims: Forge.claims(["exp": Double(Forge.now) + 0.5]), secret: secret), Verifiers.hs256())
    #expect(fractional.expiresAt == Forge.now)
  }

  @Test("the injected clock decides: the same token is valid, then expired")
  func clockIsInjected() {
    let token = Forge.hs256(claims: Forge.claims(["exp": Forge.now + 10]), secret: secret)
    #expect((try? Verifiers.hs256(now: Forge.now + 70).verify(token: token).get()) != nil)
    guard case .failure(let error) = Verifiers.hs256(now: Forge.now + 71).verify(token: token) else {
      Issue.record("accepted after exp + leeway")
      return
    }
    #expect(error.reason == .expired)
  }

  @Test("ES256 and RS256 tokens signed by openssl verify against their public keys")
  func publicKeyTokens() throws {
    let keys = TestKeys.shared
    let es = try accept(try Forge.es256(privateKey: keys.ecPrivate), try Verifiers.es256())
    #expect(es.subject == "user-1")
    let rs = try accept(try Forge.rs256(privateKey: keys.rsaPrivate), try Verifiers.rs256())
    #expect(rs.role == .editor)
  }

  @Test("a prefix room opens the rooms that start with it, * opens all")
  func roomScopes() throws {
    let prefix = try accept(
      Forge.hs256(claims: Forge.claims(["room": "team-a-*"]), secret: secret), Verifiers.hs256(), room: "team-a-1")
    #expect(prefix.room == .prefix("team-a-"))
    #expect(prefix.allows(room: "team-a-") && prefix.allows(room: "team-a-board.2"))
    #expect(!prefix.allows(room: "team-a") && !prefix.allows(room: "team-b-1") && !prefix.allows(room: "xteam-a-1"))
    let all = try accept(Forge.hs256(claims: Forge.claims(["room": "*"]), secret: secret), Verifiers.hs256())
    #expect(all.room == .any && all.allows(room: "anything") && all.allows(room: "board-1"))
    #expect(RoomScope(claim: "*")?.description == "*" && RoomScope(claim: "a-*")?.description == "a-*")
    #expect(RoomScope(claim: "**") == nil && RoomScope(claim: "") == nil && RoomScope(claim: "a b") == nil)
  }

  @Test("aud as a string or an array naming us, and iss, when both are required")
  func audienceAndIssuer() throws {
    let verifier = Verifiers.hs256(audience: "reorder", issuer: "https://app.example")
    for aud in ["reorder", ["other", "reorder"]] as [Any] {
      _ = try accept(
        Forge.hs256(claims: Forge.claims(["aud": aud, "iss": "https://app.example"]), secret: secret), verifier)
    }
    // Without a configured audience or issuer, aud and iss are not looked at.
    _ = try accept(Forge.hs256(claims: Forge.claims(["aud": "x", "iss": 3]), secret: secret), Verifiers.hs256())
  }

  @Test("a refresh for the same sub and room may change the role")
  func refreshChangesRole() throws {
    let current = BadTokenCases.current
    let token = Forge.hs256(claims: Forge.claims(["room": "board-*", "role": "editor"]), secret: secret)
    let refreshed = try Verifiers.hs256().verifyRefresh(token: token, current: current, room: "board-1").get()
    #expect(refreshed.role == .editor && refreshed.subject == current.subject)
  }

  @Test("TokenMinter's tokens verify and carry every claim given")
  func minterRoundTrip() throws {
    let minter = TokenMinter(key: .secret(secret), audience: "reorder", issuer: "https://app.example")
    let claims = TokenClaims(
      subject: "u-7", room: .prefix("team-"), role: .viewer, expiresAt: Forge.now + 90, notBefore: Forge.now,
      issuedAt: Forge.now, name: "Bo", color: "#123456", presence: false)
    let token = minter.mint(claims)
    let verified = try accept(
      token, Verifiers.hs256(audience: "reorder", issuer: "https://app.example"), room: "team-x")
    #expect(verified == claims)
    let header = try #require(Forge.unb64(String(token.split(separator: ".")[0])))
    #expect(String(decoding: header, as: UTF8.self).contains("\"alg\":\"HS256\""))
  }
}
