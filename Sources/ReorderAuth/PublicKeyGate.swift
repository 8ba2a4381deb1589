import CJWT

/// ES256 and RS256 signature checks with libcrypto against a public key parsed once.
///
/// libjwt 1.10 takes the key as PEM text and parses it again on every verify
/// (`PEM_read_bio_PUBKEY` in `jwt_verify_sha_pem`); with OpenSSL 3 that parse costs several
/// times the signature check itself, and a join storm pays it per token. So for public keys the
/// signature is checked here (`EVP_DigestVerify`, the same calls libjwt makes, with the same
/// conversion of a JWS ECDSA signature, r‖s, to DER) and libjwt only decodes the token.
///
/// `EVP_PKEY` is safe to share between threads for verification (each call has its own
/// `EVP_MD_CTX`); the key is freed in deinit, the one place.
final class PublicKeyGate: @unchecked Sendable {
  private let key: OpaquePointer
  let algorithm: TokenAlgorithm

  /// Parses `pem`; nil when it is not a public key of `algorithm`'s type.
  init?(pem: [UInt8], algorithm: TokenAlgorithm) {
    let parsed: OpaquePointer? = pem.withUnsafeBytes { raw in
      guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
      defer { BIO_free(bio) }
      return PEM_read_bio_PUBKEY(bio, nil, nil, nil)
    }
    guard let parsed else { return nil }
    let type = EVP_PKEY_get_id(parsed)
    let expected: Int32? =
      switch algorithm {
      case .es256: reorder_evp_pkey_ec()
      case .rs256: reorder_evp_pkey_rsa()
      case .hs256: nil
      }
    guard type == expected else {
      EVP_PKEY_free(parsed)
      return nil
    }
    key = parsed
    self.algorithm = algorithm
  }

  deinit { EVP_PKEY_free(key) }

  /// Whether `signature` (as it stands in the token, decoded) signs `signingInput` with SHA-256.
  func matches(signature: [UInt8], signingInput: ArraySlice<UInt8>) -> Bool {
    let der: [UInt8]
    if algorithm == .es256 {
      guard let converted = Self.derECDSA(raw: signature) else { return false }
      der = converted
    } else {
      der = signature
    }
    guard let context = EVP_MD_CTX_new() else { return false }
    defer { EVP_MD_CTX_free(context) }
    guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
    return signingInput.withUnsafeBufferPointer { input in
      EVP_DigestVerify(context, der, der.count, input.baseAddress, input.count) == 1
    }
  }

  /// A JWS ES256 signature (RFC 7518 §3.4: 32-byte r, then 32-byte s) as DER, for libcrypto.
  static func derECDSA(raw: [UInt8]) -> [UInt8]? {
    guard raw.count == 64, let signature = ECDSA_SIG_new() else { return nil }
    defer { ECDSA_SIG_free(signature) }
    guard let r = BN_bin2bn(raw, 32, nil) else { return nil }
    guard let s = raw.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress! + 32, 32, nil) }) else {
      BN_free(r)
      return nil
    }
    guard ECDSA_SIG_set0(signature, r, s) == 1 else {
      BN_free(r)
      BN_free(s)
      return nil
    }
    let length = i2d_ECDSA_SIG(signature, nil)
    guard length > 0 else { return nil }
    var der = [UInt8](repeating: 0, count: Int(length))
    let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
      var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
      return i2d_ECDSA_SIG(signature, &cursor)
    }
    return written == length ? der : nil
  }
}
