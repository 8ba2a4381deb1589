import Testing

@testable import ReorderAuth

@Suite("Base64URL: unpadded, strict, one encoding per value")
struct Base64URLTests {
  @Test("round trips every length and byte")
  func roundTrip() {
    for length in 0..<70 {
      let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 250) }
      let encoded = Base64URL.encode(bytes)
      #expect(encoded == Forge.b64(bytes))
      #expect(Base64URL.decode(Array(encoded.utf8)[...]) == bytes)
    }
  }

  @Test("refuses padding, the standard alphabet, 4n+1 lengths and non-zero unused bits")
  func strict() {
    for bad in ["QQ==", "a+b/", "abcde", "QR", "QUJ", "QUI=", " QUI", "QU\u{0}I"] {
      #expect(Base64URL.decode(Array(bad.utf8)[...]) == nil, "\(bad)")
    }
    #expect(Base64URL.decode(Array("QQ".utf8)[...]) == [0x41])
    #expect(Base64URL.decode(Array("QUI".utf8)[...]) == [0x41, 0x42])
  }
}
