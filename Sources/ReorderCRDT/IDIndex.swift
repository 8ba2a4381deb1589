/// Item id → item number: an open-addressing hash table (linear probing) whose 8-byte slots hold
/// the number and 32 bits of the id's hash; the id itself is compared (in `Board.itemIDs`) only
/// when the tag matches. One cache line per lookup instead of the several a `Dictionary` touches
/// (hash buckets, keys, values), and an FNV-1a hash instead of SipHash: item lookups are on the
/// path of every move.
struct IDIndex: Sendable {
  static let empty = UInt64.max
  private(set) var slots = [UInt64](repeating: IDIndex.empty, count: 16)
  private(set) var count = 0

  @inline(__always)
  static func hash(_ id: ItemID) -> UInt64 {
    var text = id.rawValue
    var h: UInt64 = 0xCBF2_9CE4_8422_2325
    text.withUTF8 { bytes in
      for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
    }
    h = (h ^ (h >> 29)) &* 0xBF58_476D_1CE4_E5B9
    return h ^ (h >> 32)
  }

  /// The number of `id`, or nil; `keys` are the ids by number.
  @inline(__always)
  func find(_ id: ItemID, keys: [ItemID]) -> Int32? {
    let h = IDIndex.hash(id)
    let tag = h >> 32
    let mask = slots.count - 1
    var s = Int(truncatingIfNeeded: h) & mask
    while true {
      let entry = slots[s]
      if entry == IDIndex.empty { return nil }
      if entry >> 32 == tag {
        let k = Int32(truncatingIfNeeded: entry)
        if keys[Int(k)] == id { return k }
      }
      s = (s + 1) & mask
    }
  }

  /// Adds `number` for `id`, which must be absent; `keys` are the ids by number (for regrowing).
  mutating func insert(_ id: ItemID, _ number: Int32, keys: [ItemID]) {
    if (count + 1) * 2 > slots.count { regrow(to: slots.count * 2, keys: keys) }
    place(IDIndex.hash(id), number)
    count += 1
  }

  /// Makes room for `capacity` ids.
  mutating func reserveCapacity(_ capacity: Int, keys: [ItemID]) {
    var size = slots.count
    while size < capacity * 2 { size <<= 1 }
    if size > slots.count { regrow(to: size, keys: keys) }
  }

  private mutating func place(_ h: UInt64, _ number: Int32) {
    let mask = slots.count - 1
    var s = Int(truncatingIfNeeded: h) & mask
    while slots[s] != IDIndex.empty { s = (s + 1) & mask }
    slots[s] = (h >> 32) << 32 | UInt64(UInt32(bitPattern: number))
  }

  private mutating func regrow(to size: Int, keys: [ItemID]) {
    let old = slots
    slots = Array(repeating: IDIndex.empty, count: size)
    for entry in old where entry != IDIndex.empty {
      let k = Int32(truncatingIfNeeded: entry)
      place(IDIndex.hash(keys[Int(k)]), k)
    }
  }
}
