import Foundation
import ReorderAuth
import Testing

@Suite("Key files: secrets of 32+ bytes, P-256 and RSA 2048+ public keys, clear errors otherwise")
struct TokenKeyTests {
  private let keys = TestKeys.shared

  private func write(_ text: String, _ name: String) throws -> String {
    let path = keys.directory + "/" + name
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  @Test("a secret file's trailing newline is not part of the secret")
  func secretTrimsNewline() throws {
    #expect(try TokenKey.secret(file: keys.secretFile) == .secret(keys.secret))
    let crlf = try write(String(repeating: "s", count: 32) + "\r\n", "crlf")
    #expect(try TokenKey.secret(file: crlf) == .secret(Array(String(repeating: "s", count: 32).utf8)))
  }

  @Test("a secret under 32 bytes is a configuration error that says how to make one")
  func shortSecret() throws {
    let path = try write(String(repeating: "s", count: 31) + "\n", "short")
    #expect(throws: TokenConfigurationError.secretTooShort(path: path, bytes: 31)) { try TokenKey.secret(file: path) }
    #expect(TokenConfigurationError.secretTooShort(path: path, bytes: 31).description.contains("openssl rand"))
  }

  @Test("a missing file is unreadable")
  func missingFile() {
    let path = keys.directory + "/nope"
    #expect(throws: TokenConfigurationError.unreadable(path: path)) { try TokenKey.secret(file: path) }
    #expect(throws: TokenConfigurationError.unreadable(path: path)) { try TokenKey.publicKey(file: path) }
  }

  @Test("the algorithm follows from the key: P-256 is ES256, RSA is RS256")
  func algorithmFromKey() throws {
    #expect(try TokenKey.publicKey(file: keys.ecPublic).algorithm == .es256)
    #expect(try TokenKey.publicKey(file: keys.rsaPublic).algorithm == .rs256)
    #expect(try TokenKey.secret(file: keys.secretFile).algorithm == .hs256)
  }

  @Test("not a public key: a secret, a private key")
  func notAPublicKey() {
    for path in [keys.secretFile, keys.ecPrivate] {
      #expect(throws: TokenConfigurationError.notAPublicKey(path: path)) { try TokenKey.publicKey(file: path) }
    }
  }

  @Test("keys with no accepted algorithm: EC P-384, RSA 1024")
  func unsupportedKeys() {
    for path in [keys.ecP384Public, keys.rsa1024Public] {
      #expect {
        try TokenKey.publicKey(file: path)
      } throws: { error in
        guard case .unsupportedKey(let failed, _) = error as? TokenConfigurationError else { return false }
        return failed == path
      }
    }
  }

  @Test("token lifetimes: 90s, 15m, 1h, 7d; nothing else")
  func lifetimes() {
    #expect(TokenLifetime.seconds("90s") == 90)
    #expect(TokenLifetime.seconds("15m") == 900)
    #expect(TokenLifetime.seconds("1h") == 3_600)
    #expect(TokenLifetime.seconds("7d") == 604_800)
    for bad in ["", "h", "1", "0h", "-1h", "+1h", "1.5h", "1w", "400d", "99999999999999999d", "1 h"] {
      #expect(TokenLifetime.seconds(bad) == nil, "\(bad)")
    }
  }
}
