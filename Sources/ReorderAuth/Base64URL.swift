/// Unpadded base64url (RFC 4648 §5), as JWS compact serialization requires (RFC 7515 §2).
///
/// Decoding is strict where libjwt 1.10 is not: it refuses `+`, `/`, `=` and any other byte
/// outside the alphabet, a length of 4n+1, and unused low bits that are not zero, so each value
/// has exactly one encoding.
enum Base64URL {
  private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
  /// The 6-bit value of a base64url character; nil outside the alphabet.
  @inline(__always)
  private static func value(of character: UInt8) -> UInt32? {
    switch character {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt32(character - UInt8(ascii: "A"))
    case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt32(character - UInt8(ascii: "a")) + 26
    case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(character - UInt8(ascii: "0")) + 52
    case UInt8(ascii: "-"): 62
    case UInt8(ascii: "_"): 63
    default: nil
    }
  }

  /// Encodes without padding.
  static func encode(_ bytes: some Collection<UInt8>) -> String {
    var out = [UInt8]()
    out.reserveCapacity((bytes.count * 4 + 2) / 3)
    var buffer: UInt32 = 0
    var bits = 0
    for byte in bytes {
      buffer = (buffer << 8) | UInt32(byte)
      bits += 8
      while bits >= 6 {
        bits -= 6
        out.append(alphabet[Int((buffer >> UInt32(bits)) & 0x3F)])
      }
    }
    if bits > 0 { out.append(alphabet[Int((buffer << UInt32(6 - bits)) & 0x3F)]) }
    return String(decoding: out, as: UTF8.self)
  }

  /// Decodes `text` (the UTF-8 bytes of one part of a token); nil if it is not canonical base64url.
  static func decode(_ text: ArraySlice<UInt8>) -> [UInt8]? {
    if text.count % 4 == 1 { return nil }
    return text.withUnsafeBufferPointer { characters -> [UInt8]? in
      var out = [UInt8]()
      out.reserveCapacity(characters.count * 3 / 4)
      var buffer: UInt32 = 0
      var bits: UInt32 = 0
      for character in characters {
        guard let value = value(of: character) else { return nil }
        buffer = (buffer << 6) | value
        bits += 6
        if bits >= 8 {
          bits -= 8
          out.append(UInt8(truncatingIfNeeded: buffer >> bits))
        }
      }
      // Leftover bits (2 or 4) must be zero: otherwise two encodings would mean the same bytes.
      if bits > 0 && buffer & ((1 << bits) - 1) != 0 { return nil }
      return out
    }
  }
}
