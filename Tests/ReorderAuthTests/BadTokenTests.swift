import ReorderAuth
import Testing

@Suite("Refused tokens: each gets its documented reason")
struct BadTokenTests {
  @Test("a bad token is refused with its reason", arguments: BadTokenCases.all)
  func refused(_ bad: BadToken) throws {
    let result = try bad.verify()
    guard case .failure(let error) = result else {
      Issue.record("accepted: \(bad.description)")
      return
    }
    #expect(error.reason == bad.reason, "\(bad.description): \(error)")
    #expect(error.closeCode == (bad.reason == .forbidden ? 4403 : 4401))
    #expect(!error.message.isEmpty)
  }

  @Test("there are cases for every reason the verifier can give")
  func everyReasonIsCovered() {
    let covered = Set(BadTokenCases.all.map(\.reason))
    #expect(covered == Set(TokenError.Reason.allCases))
    #expect(BadTokenCases.all.count >= 25)
  }

  @Test("messages do not echo the token's own content")
  func messagesDoNotEchoContent() throws {
    let secret = TestKeys.shared.secret
    let marker = "SECRET-MARKER-0042"
    let tokens = [
      Forge.hs256(header: #"{"alg":"\#(marker)"}"#, secret: secret),
      Forge.hs256(claims: Forge.claims(["role": marker]), secret: secret),
      Forge.hs256(claims: Forge.claims(["room": marker + "/"]), secret: secret),
      Forge.hs256(claims: Forge.claims(["sub": marker]), secret: Array("x".utf8)),
    ]
    for token in tokens {
      guard case .failure(let error) = Verifiers.hs256().verify(token: token) else {
        Issue.record("accepted \(token)")
        continue
      }
      #expect(!error.message.contains(marker), "\(error)")
    }
  }

  @Test("a 4403 refusal does not echo the token's room claim")
  func forbiddenDoesNotEchoRoom() {
    let marker = "SECRET-ROOM-0042-*"
    let token = Forge.hs256(claims: Forge.claims(["room": marker]), secret: TestKeys.shared.secret)
    guard case .failure(let error) = Verifiers.hs256().verify(token: token, forRoom: "board-2") else {
      Issue.record("accepted \(token)")
      return
    }
    #expect(error.reason == .forbidden)
    #expect(!error.message.contains("SECRET-ROOM-0042"), "\(error)")
  }
}
