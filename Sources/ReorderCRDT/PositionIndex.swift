/// Position id → node: an open-addressing hash table (linear probing). Each slot is 8 bytes: the
/// node number and the id's 32-bit hash; the id itself is only read from the node when the hashes
/// match. Since the slot keeps the whole hash, growing the table re-places entries without reading
/// a node. Positions are never removed, so there are no deleted slots.
extension PositionStore {
  static let emptySlot = UInt64.max

  /// The 32-bit hash whose low bits (masked by the table size) are the home slot. The counter's low
  /// 3 bits stay the hash's low 3 bits and only the rest is mixed, so ids that one replica makes one
  /// after another (local ops, a stream of its remote ops) land in one cache line of slots instead
  /// of eight random ones.
  @inline(__always)
  static func hash(_ id: PositionID) -> UInt64 {
    let g = ((id.counter >> 3) &* 0x9E37_79B9_7F4A_7C15) ^ (id.replica.rawValue &* 0xC2B2_AE3D_27D4_EB4F)
    let m = (g ^ (g >> 29)) &* 0xBF58_476D_1CE4_E5B9
    return UInt64(UInt32(truncatingIfNeeded: (m >> 29) & ~7 | id.counter & 7))
  }

  @inline(__always)
  static func entry(hash h: UInt64, node n: Int32) -> UInt64 { h << 32 | UInt64(UInt32(bitPattern: n)) }

  /// The node of a position id, or nil.
  /// - Complexity: O(1) expected.
  @inline(__always)
  func lookup(_ id: PositionID) -> Int32? {
    let h = PositionStore.hash(id)
    let mask = indexSlots.count - 1
    var s = Int(h) & mask
    while true {
      let entry = indexSlots[s]
      if entry == PositionStore.emptySlot { return nil }
      if entry >> 32 == h {
        let n = Int32(truncatingIfNeeded: entry)
        if nodes[Int(n)].id == id { return n }
      }
      s = (s + 1) & mask
    }
  }

  /// Adds node `n` under its id; returns false (adding nothing) when the id is already present.
  /// - Complexity: O(1) amortized.
  @discardableResult
  mutating func indexInsert(_ n: Int32) -> Bool {
    if lookup(nodes[Int(n)].id) != nil { return false }
    indexInsertNew(n)
    return true
  }

  /// Adds node `n`, whose id is known to be absent: probes only for a free slot.
  mutating func indexInsertNew(_ n: Int32) {
    if (indexCount + 1) * 2 > indexSlots.count { growIndex(to: indexSlots.count * 2) }
    place(PositionStore.entry(hash: PositionStore.hash(nodes[Int(n)].id), node: n))
    indexCount += 1
  }

  @inline(__always)
  private mutating func place(_ entry: UInt64) {
    let mask = indexSlots.count - 1
    var s = Int(entry >> 32) & mask
    while indexSlots[s] != PositionStore.emptySlot { s = (s + 1) & mask }
    indexSlots[s] = entry
  }

  /// Adds the nodes `range` (snapshot loads); returns a node whose id was already present, or nil.
  /// Entries are inserted grouped by the region of the table
  /// they hash to (a counting sort on the top bits of their home slot), so the table is written
  /// region by region instead of at random: each region stays in cache while it fills.
  /// - Complexity: O(count) expected.
  mutating func indexInsertAll(_ range: Range<Int32>) -> Int32? {
    reserveIndex(indexCount + range.count)
    let size = indexSlots.count
    let mask = size - 1
    let shift = max(0, size.trailingZeroBitCount - PositionStore.bulkRegionBits)
    let entries = nodes.withUnsafeBufferPointer { nodes in
      range.map { n in PositionStore.entry(hash: PositionStore.hash(nodes[Int(n)].id), node: n) }
    }
    var starts = [Int](repeating: 0, count: (size >> shift) + 1)
    for entry in entries { starts[(Int(entry >> 32) & mask) >> shift + 1] += 1 }
    for r in 1..<starts.count { starts[r] += starts[r - 1] }
    var sorted = [UInt64](repeating: 0, count: range.count)
    for entry in entries {
      let r = (Int(entry >> 32) & mask) >> shift
      sorted[starts[r]] = entry
      starts[r] += 1
    }
    var duplicate: Int32? = nil
    var inserted = 0
    nodes.withUnsafeBufferPointer { nodes in
      indexSlots.withUnsafeMutableBufferPointer { slots in
        for entry in sorted {
          let h = entry >> 32
          var s = Int(h) & mask
          while true {
            let other = slots[s]
            if other == PositionStore.emptySlot { break }
            if other >> 32 == h
              && nodes[Int(Int32(truncatingIfNeeded: other))].id == nodes[Int(Int32(truncatingIfNeeded: entry))].id
            {
              duplicate = Int32(truncatingIfNeeded: entry)
              return
            }
            s = (s + 1) & mask
          }
          slots[s] = entry
          inserted += 1
        }
      }
    }
    indexCount += inserted
    return duplicate
  }

  /// log2 of the number of regions `indexInsertAll` groups entries into.
  static let bulkRegionBits = 9

  /// Makes room for `capacity` entries.
  mutating func reserveIndex(_ capacity: Int) {
    var size = indexSlots.count
    while size < capacity * 2 { size <<= 1 }
    if size > indexSlots.count { growIndex(to: size) }
  }

  private mutating func growIndex(to size: Int) {
    let old = indexSlots
    indexSlots = Array(repeating: PositionStore.emptySlot, count: size)
    for entry in old where entry != PositionStore.emptySlot { place(entry) }
  }

  /// Every indexed node (tests).
  var indexedNodes: [Int32] {
    indexSlots.filter { $0 != PositionStore.emptySlot }.map { Int32(truncatingIfNeeded: $0) }
  }
}
