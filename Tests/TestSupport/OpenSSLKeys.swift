import Foundation

/// Key pairs made by the `openssl` CLI and their JWKs (RFC 7517/7518), read from `openssl pkey
/// -text`: test vectors that owe nothing to the code under test.
public enum OpenSSLKeys {
  public struct Failure: Error, CustomStringConvertible {
    public let description: String
  }

  /// Runs `openssl arguments`, feeding `input` on stdin; returns stdout.
  @discardableResult
  public static func run(_ arguments: [String], input: [UInt8] = []) throws -> [UInt8] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
    process.arguments = arguments
    let stdin = Pipe()
    let stdout = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = FileHandle.nullDevice
    try process.run()
    stdin.fileHandleForWriting.write(Data(input))
    try stdin.fileHandleForWriting.close()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw Failure(description: "openssl \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
    }
    return [UInt8](output)
  }

  /// Writes a new EC private key on `curve` (P-256, P-384) to `path`.
  public static func makeEC(_ path: String, curve: String = "P-256") throws {
    try run(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:\(curve)", "-out", path])
  }

  /// Writes a new RSA private key of `bits` to `path`.
  public static func makeRSA(_ path: String, bits: Int = 2048) throws {
    try run(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:\(bits)", "-out", path])
  }

  /// Unpadded base64url.
  public static func b64url(_ bytes: [UInt8]) -> String {
    Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
      .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
  }

  /// The JWK of the private key in `privateKeyFile` (EC P-256 or RSA), with `kid` and `alg` when
  /// given; without `includePrivate` only its public members.
  public static func jwk(
    privateKeyFile: String, kid: String? = nil, alg: String? = nil, includePrivate: Bool = true
  ) throws -> [String: Any] {
    let text = String(decoding: try run(["pkey", "-in", privateKeyFile, "-text", "-noout"]), as: UTF8.self)
    let fields = hexFields(text)
    var jwk: [String: Any]
    if let pub = fields["pub"], let priv = fields["priv"] {
      guard pub.count == 65, pub[0] == 4 else { throw Failure(description: "not an uncompressed P-256 point") }
      jwk = ["kty": "EC", "crv": "P-256", "x": b64url(Array(pub[1...32])), "y": b64url(Array(pub[33...]))]
      if includePrivate { jwk["d"] = b64url(padded(priv, to: 32)) }
    } else if let n = fields["modulus"] {
      guard let exponentLine = text.split(separator: "\n").first(where: { $0.hasPrefix("publicExponent: ") }),
        let exponent = UInt64(exponentLine.split(separator: " ")[1])
      else { throw Failure(description: "no publicExponent") }
      var e = withUnsafeBytes(of: exponent.bigEndian) { Array($0) }
      while e.first == 0 { e.removeFirst() }
      jwk = ["kty": "RSA", "n": b64url(unsigned(n)), "e": b64url(e)]
      if includePrivate {
        for (member, field) in [
          ("d", "privateExponent"), ("p", "prime1"), ("q", "prime2"), ("dp", "exponent1"), ("dq", "exponent2"),
          ("qi", "coefficient"),
        ] {
          guard let value = fields[field] else { throw Failure(description: "no \(field)") }
          jwk[member] = b64url(unsigned(value))
        }
      }
    } else {
      throw Failure(description: "neither an EC nor an RSA key:\n\(text)")
    }
    if let kid { jwk["kid"] = kid }
    if let alg { jwk["alg"] = alg }
    return jwk
  }

  /// An `oct` JWK of `secret`.
  public static func octJWK(_ secret: [UInt8], kid: String? = nil, alg: String? = nil) -> [String: Any] {
    var jwk: [String: Any] = ["kty": "oct", "k": b64url(secret)]
    if let kid { jwk["kid"] = kid }
    if let alg { jwk["alg"] = alg }
    return jwk
  }

  /// `{"keys": [...]}` as JSON text.
  public static func jwks(_ keys: [[String: Any]]) -> String {
    let data = try! JSONSerialization.data(withJSONObject: ["keys": keys], options: [.sortedKeys])
    return String(decoding: data, as: UTF8.self)
  }

  /// The DER of `openssl <arguments> -outform DER` on a key file.
  public static func der(_ arguments: [String]) throws -> [UInt8] { try run(arguments + ["-outform", "DER"]) }

  /// `name:` followed by indented lines of colon-separated hex, as `openssl pkey -text` prints.
  private static func hexFields(_ text: String) -> [String: [UInt8]] {
    var fields: [String: [UInt8]] = [:]
    var current: String?
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("    "), let name = current {
        let bytes = line.trimmingCharacters(in: .whitespaces).split(separator: ":").compactMap { UInt8($0, radix: 16) }
        fields[name, default: []] += bytes
      } else if line.hasSuffix(":") && !line.hasPrefix(" ") {
        current = String(line.dropLast())
      } else {
        current = nil
      }
    }
    return fields
  }

  /// Big-endian magnitude without leading zeros (JWK integers, RFC 7518 §2 Base64urlUInt).
  private static func unsigned(_ bytes: [UInt8]) -> [UInt8] {
    let trimmed = Array(bytes.drop { $0 == 0 })
    return trimmed.isEmpty ? [0] : trimmed
  }

  private static func padded(_ bytes: [UInt8], to length: Int) -> [UInt8] {
    let trimmed = Array(bytes.drop { $0 == 0 })
    return [UInt8](repeating: 0, count: max(0, length - trimmed.count)) + trimmed
  }
}
