/// Appends little-endian base-128 varints, strings and doubles to a byte buffer.
struct ByteWriter {
  var bytes: [UInt8] = []

  init(capacity: Int = 32) { bytes.reserveCapacity(capacity) }

  mutating func byte(_ b: UInt8) { bytes.append(b) }

  /// LEB128: 7 bits per byte, high bit set on all but the last byte.
  mutating func varint(_ value: UInt64) {
    var v = value
    while v >= 0x80 {
      bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
      v >>= 7
    }
    bytes.append(UInt8(v))
  }

  mutating func varint(_ value: Int) { varint(UInt64(value)) }

  /// Zigzag-encoded signed varint.
  mutating func signed(_ value: Int64) { varint(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }

  mutating func string(_ s: String) {
    var s = s
    s.withUTF8 { buffer in
      varint(buffer.count)
      bytes.append(contentsOf: buffer)
    }
  }

  mutating func double(_ d: Double) {
    var bits = d.bitPattern
    for _ in 0..<8 {
      bytes.append(UInt8(truncatingIfNeeded: bits))
      bits >>= 8
    }
  }

  mutating func append(_ other: [UInt8]) { bytes.append(contentsOf: other) }
}

/// Reads what ``ByteWriter`` wrote; every read is bounds-checked and throws ``BoardError/malformed(_:)``.
struct ByteReader {
  let bytes: [UInt8]
  var offset: Int

  init(_ bytes: [UInt8], offset: Int = 0) {
    self.bytes = bytes
    self.offset = offset
  }

  var isAtEnd: Bool { offset >= bytes.count }

  @inline(__always)
  mutating func byte() throws(BoardError) -> UInt8 {
    guard offset < bytes.count else { throw .malformed("unexpected end of data") }
    defer { offset += 1 }
    return bytes[offset]
  }

  @inline(__always)
  mutating func varint() throws(BoardError) -> UInt64 {
    var result: UInt64 = 0
    var shift: UInt64 = 0
    while true {
      guard offset < bytes.count else { throw .malformed("unexpected end of data in a number") }
      let b = bytes[offset]
      offset += 1
      if shift == 63 && b > 1 { throw .malformed("number too large") }
      result |= UInt64(b & 0x7F) << shift
      if b & 0x80 == 0 { return result }
      shift += 7
      if shift > 63 { throw .malformed("number too long") }
    }
  }

  /// A varint that must fit in `limit` (used for counts and indices).
  mutating func count(max limit: Int) throws(BoardError) -> Int {
    let v = try varint()
    guard limit >= 0, v <= UInt64(limit) else { throw .malformed("count \(v) over the limit \(limit)") }
    return Int(v)
  }

  /// A count of elements that follow, each at least one byte: bounded by the bytes left, so a
  /// corrupt count cannot make the reader reserve huge amounts of memory.
  mutating func elementCount(max limit: Int) throws(BoardError) -> Int {
    try count(max: Swift.min(limit, bytes.count - offset))
  }

  mutating func signed() throws(BoardError) -> Int64 {
    let v = try varint()
    return Int64(bitPattern: (v >> 1) ^ (0 &- (v & 1)))
  }

  mutating func string(maxBytes: Int) throws(BoardError) -> String {
    let n = try count(max: maxBytes)
    guard bytes.count - offset >= n else { throw .malformed("string runs past the end") }
    let slice = bytes[offset..<(offset + n)]
    offset += n
    guard let s = String(validating: slice, as: UTF8.self) else { throw .malformed("invalid UTF-8") }
    return s
  }

  mutating func double() throws(BoardError) -> Double {
    guard bytes.count - offset >= 8 else { throw .malformed("unexpected end of data in a number") }
    var bits: UInt64 = 0
    for i in 0..<8 { bits |= UInt64(bytes[offset + i]) << (8 * UInt64(i)) }
    offset += 8
    return Double(bitPattern: bits)
  }
}
