import Foundation

/// A small ASN.1 DER writer (X.690), for the few structures that turn a JWK into the key bytes
/// libjwt 1.10 and libcrypto take: SubjectPublicKeyInfo (RFC 5280), SEC1 ECPrivateKey (RFC 5915)
/// and PKCS#1 RSAPrivateKey (RFC 8017). Each function returns one complete element (tag, length,
/// contents); nothing here parses.
enum DER {
  /// `SEQUENCE { elements… }`.
  static func sequence(_ elements: [[UInt8]]) -> [UInt8] { element(tag: 0x30, elements.flatMap { $0 }) }

  /// A non-negative `INTEGER` from big-endian magnitude bytes: leading zeros are dropped and one
  /// `00` is put back when the top bit is set, so the value stays positive (X.690 §8.3).
  static func integer(unsigned magnitude: [UInt8]) -> [UInt8] {
    var bytes = Array(magnitude.drop { $0 == 0 })
    if bytes.isEmpty || bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
    return element(tag: 0x02, bytes)
  }

  /// A small non-negative `INTEGER` (a version number).
  static func integer(_ value: UInt8) -> [UInt8] { integer(unsigned: [value]) }

  /// `OBJECT IDENTIFIER` from its arcs (`[1, 2, 840, 10045, 2, 1]`), X.690 §8.19.
  static func objectIdentifier(_ arcs: [UInt64]) -> [UInt8] {
    precondition(arcs.count >= 2 && arcs[0] <= 2, "an OID has at least two arcs, the first 0, 1 or 2")
    var contents = base128(arcs[0] * 40 + arcs[1])
    for arc in arcs.dropFirst(2) { contents += base128(arc) }
    return element(tag: 0x06, contents)
  }

  /// `BIT STRING` of whole bytes (no unused bits).
  static func bitString(_ bytes: [UInt8]) -> [UInt8] { element(tag: 0x03, [0] + bytes) }

  /// `OCTET STRING`.
  static func octetString(_ bytes: [UInt8]) -> [UInt8] { element(tag: 0x04, bytes) }

  /// `NULL`.
  static let null: [UInt8] = [0x05, 0x00]

  /// A context-specific constructed, explicitly tagged element `[number] { element }`.
  static func explicit(_ number: UInt8, _ element: [UInt8]) -> [UInt8] {
    precondition(number < 31, "low tag numbers only")
    return DER.element(tag: 0xA0 | number, element)
  }

  /// Tag, definite length (short form below 128, long form above), contents.
  static func element(tag: UInt8, _ contents: [UInt8]) -> [UInt8] { [tag] + length(contents.count) + contents }

  static func length(_ count: Int) -> [UInt8] {
    if count < 0x80 { return [UInt8(count)] }
    var bytes: [UInt8] = []
    var rest = count
    while rest > 0 {
      bytes.insert(UInt8(rest & 0xFF), at: 0)
      rest >>= 8
    }
    return [0x80 | UInt8(bytes.count)] + bytes
  }

  /// Base 128, most significant group first, the high bit set on all but the last byte.
  private static func base128(_ value: UInt64) -> [UInt8] {
    var bytes = [UInt8(value & 0x7F)]
    var rest = value >> 7
    while rest > 0 {
      bytes.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
      rest >>= 7
    }
    return bytes
  }

  /// The PEM text of `der` (RFC 7468): `-----BEGIN label-----`, base64 in lines of 64, `-----END label-----`.
  static func pem(_ der: [UInt8], label: String) -> [UInt8] {
    let base64 = Data(der).base64EncodedString()
    var text = "-----BEGIN \(label)-----\n"
    var index = base64.startIndex
    while index < base64.endIndex {
      let end = base64.index(index, offsetBy: 64, limitedBy: base64.endIndex) ?? base64.endIndex
      text += base64[index..<end] + "\n"
      index = end
    }
    text += "-----END \(label)-----\n"
    return Array(text.utf8)
  }

  /// Object identifiers used here.
  enum OID {
    /// id-ecPublicKey (RFC 5480 §2.1.1).
    static let ecPublicKey: [UInt64] = [1, 2, 840, 10045, 2, 1]
    /// prime256v1, a.k.a. secp256r1 and NIST P-256 (RFC 5480 §2.1.1.1).
    static let prime256v1: [UInt64] = [1, 2, 840, 10045, 3, 1, 7]
    /// rsaEncryption (RFC 8017 Appendix C).
    static let rsaEncryption: [UInt64] = [1, 2, 840, 113549, 1, 1, 1]
  }
}
