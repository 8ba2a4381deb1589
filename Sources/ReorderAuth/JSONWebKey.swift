import Foundation

/// What signs tokens: an HS256 secret or a PEM private key (SEC1 `EC PRIVATE KEY` for ES256,
/// PKCS#1 `RSA PRIVATE KEY` for RS256), the bytes libjwt 1.10 takes.
public enum SigningKey: Sendable, Equatable {
  /// An HS256 secret of at least `TokenKey.minimumSecretBytes`.
  case secret([UInt8])
  /// A PEM private key and the algorithm it signs with.
  case privateKey(pem: [UInt8], algorithm: TokenAlgorithm)

  /// The algorithm the tokens it signs carry.
  public var algorithm: TokenAlgorithm {
    switch self {
    case .secret: .hs256
    case .privateKey(_, let algorithm): algorithm
    }
  }
}

/// One key of a JWK Set (RFC 7517), checked, as the bytes libjwt 1.10 and libcrypto take (libjwt
/// 1.10 knows no JWK): `oct` → the secret (`k`), `EC` P-256 → a SubjectPublicKeyInfo PEM (and, with
/// `d`, a SEC1 private key), `RSA` → a SubjectPublicKeyInfo PEM (and, with `d`, `p`, `q`, `dp`,
/// `dq`, `qi`, a PKCS#1 private key).
public struct JSONWebKey: Sendable, Equatable {
  /// `kid`: what a token's header names to pick this key. Required when the set has several keys.
  public let keyID: String?
  /// What verifies the tokens it signs; its algorithm is the key's `alg` (or the one its `kty`
  /// implies when it has none): the only `alg` a token for this key may carry.
  public let verificationKey: TokenKey
  /// What signs with it, when the JWK holds its private parts; nil for a public-only key.
  public let signingKey: SigningKey?

  /// The one algorithm tokens for this key carry.
  public var algorithm: TokenAlgorithm { verificationKey.algorithm }

  /// A key made from key bytes (the one-key shorthands, `--auth-secret-file` and `--auth-public-key`).
  public init(keyID: String? = nil, verificationKey: TokenKey, signingKey: SigningKey? = nil) {
    self.keyID = keyID
    self.verificationKey = verificationKey
    self.signingKey = signingKey
  }
}

/// A JWK Set file (`{"keys": [...]}`), every key checked at once: a set that cannot be used is an
/// error naming the key and what is wrong, never a key silently skipped.
public struct JSONWebKeySet: Sendable, Equatable {
  /// The keys, in the file's order.
  public let keys: [JSONWebKey]

  /// The set's keys as given (each with a distinct `kid`, and every one with a `kid` when there are
  /// several: `parse` checks this for files).
  public init(keys: [JSONWebKey]) { self.keys = keys }

  /// Reads and checks a JWK Set file.
  ///
  /// - Throws: `TokenConfigurationError.unreadable` or `.badKeySet` naming the key and the fault.
  public static func read(file path: String) throws(TokenConfigurationError) -> JSONWebKeySet {
    guard let bytes = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path) }
    return try parse([UInt8](bytes), path: path)
  }

  /// Checks a JWK Set's JSON text; `path` only names it in errors.
  public static func parse(_ bytes: [UInt8], path: String) throws(TokenConfigurationError) -> JSONWebKeySet {
    func fail(_ detail: String) -> TokenConfigurationError { .badKeySet(path: path, detail: detail) }
    guard let json = try? JSONSerialization.jsonObject(with: Data(bytes)) else {
      throw fail("it is not JSON")
    }
    guard let object = json as? [String: Any] else { throw fail("it is not a JSON object ({\"keys\": [...]})") }
    guard let list = object["keys"] else {
      throw fail(
        object["kty"] != nil
          ? "it is one JWK, not a set: put it in {\"keys\": [...]}" : "it has no \"keys\" member ({\"keys\": [...]})")
    }
    guard let members = list as? [Any] else { throw fail("\"keys\" is not an array") }
    guard !members.isEmpty else { throw fail("\"keys\" is empty: give at least one key") }
    var keys: [JSONWebKey] = []
    var seen: Set<String> = []
    for (index, member) in members.enumerated() {
      let key = try JWKReader(member, number: index + 1, count: members.count, path: path).key()
      if let kid = key.keyID {
        guard seen.insert(kid).inserted else { throw fail("two keys have kid \"\(kid)\": each kid names one key") }
      } else if members.count > 1 {
        throw fail("key \(index + 1) has no kid: in a set of several keys every key needs one (tokens name it)")
      }
      keys.append(key)
    }
    return JSONWebKeySet(keys: keys)
  }

  /// The key that signs for `kid` (nil: the set's only key), for minting.
  ///
  /// - Throws: `.badKeySet` when no key has that kid, when several keys leave the choice open,
  ///   when the key is public only, or when its private parts do not belong to its public ones.
  public func signingKey(keyID: String?, path: String) throws(TokenConfigurationError) -> (SigningKey, keyID: String?) {
    func fail(_ detail: String) -> TokenConfigurationError { .badKeySet(path: path, detail: detail) }
    let key: JSONWebKey
    if let keyID {
      guard let named = keys.first(where: { $0.keyID == keyID }) else {
        throw fail("no key has kid \"\(keyID)\" (kids: \(keyIDList))")
      }
      key = named
    } else {
      guard keys.count == 1 else {
        throw fail("it has \(keys.count) keys: say which signs with its kid (\(keyIDList))")
      }
      key = keys[0]
    }
    let named = key.keyID.map { "key \"\($0)\"" } ?? "its key"
    guard let signing = key.signingKey else {
      throw fail(
        "\(named) is public only: minting needs its private parts (EC: d; RSA: d, p, q, dp, dq, qi)")
    }
    // A probe token, signed with the private parts and verified with the public ones.
    let probe = TokenClaims(subject: "probe", room: .any, role: .viewer, expiresAt: 4_000_000_000)
    guard let token = TokenMinter(signingKey: signing).tryMint(probe),
      (try? TokenVerifier(key: key.verificationKey, now: { 0 }).verify(token: token).get()) != nil
    else {
      throw fail("\(named)'s private parts do not belong to its public ones (x, y or n, e)")
    }
    return (signing, key.keyID)
  }

  private var keyIDList: String { keys.compactMap(\.keyID).map { "\"\($0)\"" }.joined(separator: ", ") }
}

/// Reads one member of `keys`.
private struct JWKReader {
  let fields: [String: Any]?
  let number: Int
  let path: String
  let name: String

  init(_ member: Any, number: Int, count: Int, path: String) {
    fields = member as? [String: Any]
    self.number = number
    self.path = path
    if let kid = fields?["kid"] as? String {
      name = "key \(number) (kid \"\(kid)\")"
    } else {
      name = count == 1 ? "its key" : "key \(number)"
    }
  }

  func fail(_ detail: String) -> TokenConfigurationError { .badKeySet(path: path, detail: "\(name): \(detail)") }

  func key() throws(TokenConfigurationError) -> JSONWebKey {
    guard let fields else { throw fail("not a JSON object") }
    let keyID: String?
    switch fields["kid"] {
    case nil: keyID = nil
    case let kid as String where !kid.isEmpty: keyID = kid
    default: throw fail("kid must be a non-empty string")
    }
    if let use = fields["use"] {
      guard use as? String == "sig" else { throw fail("use must be \"sig\" (this key signs tokens)") }
    }
    guard let kty = fields["kty"] as? String else { throw fail("it has no kty (oct, EC or RSA)") }
    let implied: TokenAlgorithm
    switch kty {
    case "oct": implied = .hs256
    case "EC": implied = .es256
    case "RSA": implied = .rs256
    default: throw fail("kty \"\(kty)\" is not supported (oct for HS256, EC P-256 for ES256, RSA for RS256)")
    }
    if let alg = fields["alg"] {
      guard let name = alg as? String, let algorithm = TokenAlgorithm(rawValue: name) else {
        throw fail("alg must be HS256, ES256 or RS256")
      }
      guard algorithm == implied else {
        throw fail("alg \(algorithm.rawValue) does not fit kty \(kty) (which takes \(implied.rawValue))")
      }
    }
    switch implied {
    case .hs256: return try octetKey(keyID)
    case .es256: return try ellipticCurveKey(keyID)
    case .rs256: return try rsaKey(keyID)
    }
  }

  /// A base64url member, decoded; nil when absent.
  private func bytes(_ member: String) throws(TokenConfigurationError) -> [UInt8]? {
    guard let value = fields?[member] else { return nil }
    guard let text = value as? String, !text.isEmpty, let decoded = Base64URL.decode(Array(text.utf8)[...]) else {
      throw fail("\(member) is not unpadded base64url (RFC 7515 §2)")
    }
    return decoded
  }

  private func required(_ member: String) throws(TokenConfigurationError) -> [UInt8] {
    guard let value = try bytes(member) else { throw fail("it has no \(member)") }
    return value
  }

  private func octetKey(_ keyID: String?) throws(TokenConfigurationError) -> JSONWebKey {
    let secret = try required("k")
    guard secret.count >= TokenKey.minimumSecretBytes else {
      throw fail(
        "k has \(secret.count) bytes; an HS256 key needs at least \(TokenKey.minimumSecretBytes) "
          + "(make one with: openssl rand 32 | basenc --base64url)")
    }
    return JSONWebKey(keyID: keyID, verificationKey: .secret(secret), signingKey: .secret(secret))
  }

  /// P-256 coordinates and the private scalar are 32 bytes each (RFC 7518 §6.2.1.2, §6.2.2.1).
  private func ellipticCurveKey(_ keyID: String?) throws(TokenConfigurationError) -> JSONWebKey {
    guard let curve = fields?["crv"] as? String else { throw fail("it has no crv (P-256)") }
    guard curve == "P-256" else { throw fail("crv \"\(curve)\" is not supported: ES256 takes P-256") }
    let x = try required("x")
    let y = try required("y")
    guard x.count == 32, y.count == 32 else { throw fail("x and y must be 32 bytes each on P-256") }
    let point = [0x04] + x + y
    let spki = DER.sequence([
      DER.sequence([DER.objectIdentifier(DER.OID.ecPublicKey), DER.objectIdentifier(DER.OID.prime256v1)]),
      DER.bitString(point),
    ])
    let pem = DER.pem(spki, label: "PUBLIC KEY")
    try checkPublic(pem, expected: .es256, fault: "x, y is not a point on P-256")
    var signing: SigningKey?
    if let d = try bytes("d") {
      guard d.count == 32 else { throw fail("d must be 32 bytes on P-256") }
      let sec1 = DER.sequence([
        DER.integer(1), DER.octetString(d), DER.explicit(0, DER.objectIdentifier(DER.OID.prime256v1)),
        DER.explicit(1, DER.bitString(point)),
      ])
      signing = .privateKey(pem: DER.pem(sec1, label: "EC PRIVATE KEY"), algorithm: .es256)
    }
    return JSONWebKey(keyID: keyID, verificationKey: .publicKey(pem: pem, algorithm: .es256), signingKey: signing)
  }

  private func rsaKey(_ keyID: String?) throws(TokenConfigurationError) -> JSONWebKey {
    let n = try required("n")
    let e = try required("e")
    let spki = DER.sequence([
      DER.sequence([DER.objectIdentifier(DER.OID.rsaEncryption), DER.null]),
      DER.bitString(DER.sequence([DER.integer(unsigned: n), DER.integer(unsigned: e)])),
    ])
    let pem = DER.pem(spki, label: "PUBLIC KEY")
    try checkPublic(pem, expected: .rs256, fault: "n, e is not an RSA public key")
    var signing: SigningKey?
    if let d = try bytes("d") {
      if fields?["oth"] != nil { throw fail("oth (more than two primes) is not supported") }
      var parts = [n, e, d]
      for member in ["p", "q", "dp", "dq", "qi"] {
        guard let value = try bytes(member) else {
          throw fail("it has d but no \(member): minting needs p, q, dp, dq and qi too")
        }
        parts.append(value)
      }
      let pkcs1 = DER.sequence([DER.integer(0)] + parts.map { DER.integer(unsigned: $0) })
      signing = .privateKey(pem: DER.pem(pkcs1, label: "RSA PRIVATE KEY"), algorithm: .rs256)
    }
    return JSONWebKey(keyID: keyID, verificationKey: .publicKey(pem: pem, algorithm: .rs256), signingKey: signing)
  }

  /// libcrypto parses the SubjectPublicKeyInfo (an EC point off the curve fails here) and says
  /// what it is (RSA under 2048 bits fails here).
  private func checkPublic(_ pem: [UInt8], expected: TokenAlgorithm, fault: String) throws(TokenConfigurationError) {
    let found: TokenAlgorithm
    do {
      found = try TokenKey.algorithm(ofPEM: pem, path: path)
    } catch {
      if case .unsupportedKey(_, let detail) = error {
        throw fail("\(detail) cannot be used (RSA keys need at least \(TokenKey.minimumRSABits) bits)")
      }
      throw fail(fault)
    }
    guard found == expected else { throw fail(fault) }
  }
}
