/// HS256 signature check in constant time, done with libcrypto before libjwt sees the token.
///
/// libjwt 1.10 compares the expected and received signatures with `strcmp` (it returns at the
/// first differing byte), which leaks through timing how much of a forged signature is right.
/// Here the comparison is `CRYPTO_memcmp`; libjwt then only ever checks signatures that match.
enum HMACGate {
  /// Whether `signature` is HMAC-SHA256 of `signingInput` (`header.claims`, as sent) under `secret`.
  static func matches(signature: [UInt8], signingInput: ArraySlice<UInt8>, secret: [UInt8]) -> Bool {
    guard signature.count == 32 else { return false }
    return HMACSHA256.constantTimeEqual(HMACSHA256.authenticate(signingInput, key: secret), signature)
  }
}
