import ReorderAuth
import Testing

@testable import ReorderServer

@Suite("TokenAccess: a token's remaining time, unclamped, and the verifier's leeway")
struct TokenAccessExpiryTests {
  private let exp: Int64 = 1_800_000_000
  private let key = TokenKey.secret(Array(repeating: 7, count: 32))

  private func token() -> String {
    TokenMinter(key: key).mint(TokenClaims(subject: "u", room: .exact("r"), role: .editor, expiresAt: exp))
  }

  @Test("a token 30 s past exp (within the leeway) gives expiresIn -30, so its close falls at exp plus the leeway")
  func pastExpIsNegative() throws {
    let access = TokenAccess(verifier: TokenVerifier(key: key, now: { [exp] in exp + 30 }))
    let granted = try access.verify(token: token(), room: "r").get()
    #expect(granted.expiresIn == -30)
    #expect(granted.leeway == 60)
  }

  @Test("the close deadline follows the verifier's own leeway; past exp plus the leeway is refused")
  func verifierLeeway() throws {
    let within = TokenAccess(verifier: TokenVerifier(key: key, leewaySeconds: 5, now: { [exp] in exp + 3 }))
    let granted = try within.verify(token: token(), room: "r").get()
    #expect(granted.expiresIn + granted.leeway == 2)
    let after = TokenAccess(verifier: TokenVerifier(key: key, leewaySeconds: 5, now: { [exp] in exp + 6 }))
    guard case .failure(let denial) = after.verify(token: token(), room: "r") else {
      Issue.record("a token past exp plus the leeway was accepted")
      return
    }
    #expect(denial.reason == "expired")
    #expect(!denial.forbidden)
  }
}
