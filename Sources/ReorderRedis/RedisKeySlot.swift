/// The Redis Cluster hash slot of a key (the cluster specification's `HASH_SLOT`): CRC16
/// (XMODEM: polynomial 0x1021, initial 0) of the key, modulo 16,384. When the key holds a `{`
/// followed later by a `}` with at least one byte between them, only the bytes between the first
/// `{` and the first `}` after it are hashed (the hash tag), so every key of a room
/// (`reorder:{room}:…`) lives in one slot.
public enum RedisKeySlot {
  /// The number of slots of a cluster.
  public static let count = 16_384

  /// The slot of `key`.
  public static func slot<Key: Collection<UInt8>>(of key: Key) -> Int {
    let hashed = hashTag(of: key) ?? key[...]
    return Int(crc16(hashed) & 0x3FFF)
  }

  /// The slot of `key`'s UTF-8 bytes.
  public static func slot(of key: String) -> Int { slot(of: Array(key.utf8)) }

  /// The bytes between the first `{` and the first `}` after it, when there are any.
  static func hashTag<Key: Collection<UInt8>>(of key: Key) -> Key.SubSequence? {
    guard let open = key.firstIndex(of: UInt8(ascii: "{")) else { return nil }
    let start = key.index(after: open)
    guard let close = key[start...].firstIndex(of: UInt8(ascii: "}")), close != start else { return nil }
    return key[start..<close]
  }

  /// CRC16/XMODEM, a byte at a time from a table.
  static func crc16<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt16 {
    var crc: UInt16 = 0
    for byte in bytes { crc = (crc << 8) ^ table[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ byte)] }
    return crc
  }

  private static let table: [UInt16] = (0..<256).map { index in
    var crc = UInt16(index) << 8
    for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
    return crc
  }
}
