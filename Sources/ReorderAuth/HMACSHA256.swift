import CJWT

/// HMAC-SHA256 (RFC 2104) from libcrypto: what room tokens (HS256) and webhook signatures are made
/// of.
public enum HMACSHA256 {
  /// The 32-byte HMAC-SHA256 of `message` under `key`.
  public static func authenticate<Message: Collection<UInt8>>(_ message: Message, key: [UInt8]) -> [UInt8] {
    var digest = [UInt8](repeating: 0, count: 32)
    var length: UInt32 = 0
    let produced =
      message.withContiguousStorageIfAvailable { input in
        compute(input: UnsafeRawBufferPointer(input), key: key, into: &digest, length: &length)
      } ?? Array(message).withUnsafeBytes { input in compute(input: input, key: key, into: &digest, length: &length) }
    // libcrypto fails only without memory or without SHA-256, neither of which a caller can handle.
    precondition(produced && length == 32, "libcrypto could not compute HMAC-SHA256")
    return digest
  }

  /// Whether `a` and `b` are equal, in time that depends only on their lengths (`CRYPTO_memcmp`).
  public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    a.count == b.count && CRYPTO_memcmp(a, b, a.count) == 0
  }

  private static func compute(
    input: UnsafeRawBufferPointer, key: [UInt8], into digest: inout [UInt8], length: inout UInt32
  ) -> Bool {
    key.withUnsafeBytes { key in
      HMAC(EVP_sha256(), key.baseAddress, Int32(key.count), input.baseAddress, input.count, &digest, &length) != nil
    }
  }
}
