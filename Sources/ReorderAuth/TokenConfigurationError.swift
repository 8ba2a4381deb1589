/// A key file that cannot verify or mint tokens. `reorder` exits with status 2 on one.
public enum TokenConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The file could not be read.
  case unreadable(path: String)
  /// An HS256 secret shorter than `TokenKey.minimumSecretBytes`.
  case secretTooShort(path: String, bytes: Int)
  /// Not a PEM public key (`-----BEGIN PUBLIC KEY-----`).
  case notAPublicKey(path: String)
  /// A public key of a type or size that has no accepted algorithm (not P-256, not RSA ≥ 2048 bits).
  case unsupportedKey(path: String, detail: String)
  /// A JWK Set (RFC 7517) that cannot be used: not JSON, no keys, a key of an unsupported type,
  /// curve or alg, two keys with one kid, a key without kid among several, and the like.
  case badKeySet(path: String, detail: String)
  /// More than one of a JWK Set, a secret and a public key (each is the whole key material).
  case severalKeySources

  /// What is wrong and what to do about it.
  public var description: String {
    switch self {
    case .unreadable(let path):
      "cannot read the key file '\(path)'"
    case .secretTooShort(let path, let bytes):
      "the HS256 secret in '\(path)' has \(bytes) bytes; it needs at least \(TokenKey.minimumSecretBytes) "
        + "(make one with: openssl rand -hex 32 > \(path))"
    case .notAPublicKey(let path):
      "'\(path)' is not a PEM public key (-----BEGIN PUBLIC KEY-----); "
        + "extract one with: openssl pkey -in private.pem -pubout"
    case .unsupportedKey(let path, let detail):
      "the public key in '\(path)' cannot be used: \(detail) (use an EC P-256 key for ES256 or RSA >= 2048 bits for RS256)"
    case .badKeySet(let path, let detail):
      "the JWK Set in '\(path)' cannot be used: \(detail)"
    case .severalKeySources:
      "give one of a JWK Set, an HS256 secret file or a public key file, not several"
    }
  }
}
