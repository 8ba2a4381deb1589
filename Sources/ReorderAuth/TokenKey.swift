import CJWT
import Foundation

/// The one signing algorithm a key allows. It follows from the key, never from a token's header.
public enum TokenAlgorithm: String, Sendable, CaseIterable {
  /// HMAC with SHA-256 and a shared secret.
  case hs256 = "HS256"
  /// ECDSA on P-256 with SHA-256 and a public key.
  case es256 = "ES256"
  /// RSASSA-PKCS1-v1_5 with SHA-256 and a public key.
  case rs256 = "RS256"

  var libjwt: jwt_alg_t {
    switch self {
    case .hs256: JWT_ALG_HS256
    case .es256: JWT_ALG_ES256
    case .rs256: JWT_ALG_RS256
    }
  }
}

/// What tokens are verified (or minted) with: a shared HS256 secret or a PEM public key.
public enum TokenKey: Sendable, Equatable {
  /// An HS256 secret: the bytes of the file, without a trailing newline; at least
  /// `minimumSecretBytes` (`secret(file:)` checks; a verifier or minter made with fewer stops).
  case secret([UInt8])
  /// A PEM public key (its file's bytes) and the algorithm its type allows.
  case publicKey(pem: [UInt8], algorithm: TokenAlgorithm)

  /// Shortest accepted HS256 secret (RFC 7518 §3.2: at least the hash size, 256 bits).
  public static let minimumSecretBytes = 32
  /// Smallest accepted RSA modulus, in bits.
  public static let minimumRSABits: Int32 = 2048

  /// The algorithm tokens must carry in `alg`.
  public var algorithm: TokenAlgorithm {
    switch self {
    case .secret: .hs256
    case .publicKey(_, let algorithm): algorithm
    }
  }

  /// Reads an HS256 secret file; one trailing newline (`\n` or `\r\n`) is not part of the secret.
  ///
  /// - Throws: `TokenConfigurationError.unreadable` or `.secretTooShort`.
  public static func secret(file path: String) throws(TokenConfigurationError) -> TokenKey {
    guard var bytes = FileManager.default.contents(atPath: path).map({ [UInt8]($0) }) else {
      throw .unreadable(path: path)
    }
    if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
    if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
    guard bytes.count >= minimumSecretBytes else { throw .secretTooShort(path: path, bytes: bytes.count) }
    return .secret(bytes)
  }

  /// Reads a PEM public key file; an EC P-256 key means ES256, an RSA key (≥ 2048 bits) RS256.
  ///
  /// - Throws: `TokenConfigurationError.unreadable`, `.notAPublicKey` or `.unsupportedKey`.
  public static func publicKey(file path: String) throws(TokenConfigurationError) -> TokenKey {
    guard let bytes = FileManager.default.contents(atPath: path).map({ [UInt8]($0) }) else {
      throw .unreadable(path: path)
    }
    return .publicKey(pem: bytes, algorithm: try algorithm(ofPEM: bytes, path: path))
  }

  /// Asks libcrypto what the key is: libjwt 1.10 cannot tell (it parses the PEM on each verify).
  static func algorithm(ofPEM pem: [UInt8], path: String) throws(TokenConfigurationError) -> TokenAlgorithm {
    let key: OpaquePointer? = pem.withUnsafeBytes { raw in
      guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
      defer { BIO_free(bio) }
      return PEM_read_bio_PUBKEY(bio, nil, nil, nil)
    }
    guard let key else { throw .notAPublicKey(path: path) }
    defer { EVP_PKEY_free(key) }
    let type = EVP_PKEY_get_id(key)
    if type == reorder_evp_pkey_rsa() {
      let bits = EVP_PKEY_get_bits(key)
      guard bits >= minimumRSABits else { throw .unsupportedKey(path: path, detail: "an RSA key of \(bits) bits") }
      return .rs256
    }
    if type == reorder_evp_pkey_ec() {
      var name = [CChar](repeating: 0, count: 64)
      var length = 0
      guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1 else {
        throw .unsupportedKey(path: path, detail: "an EC key of unknown curve")
      }
      let curve = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
      guard curve == "prime256v1" else { throw .unsupportedKey(path: path, detail: "an EC key on curve \(curve)") }
      return .es256
    }
    throw .unsupportedKey(path: path, detail: "a key of OpenSSL type \(type)")
  }
}
