/// Position id → node: an open-addressing hash table (linear probing, multiplicative hash). Each
/// slot is 8 bytes: the node number and 32 bits of the id's hash as a tag; the id itself is only
/// read from the node when the tag matches. Positions are never removed, so there are no deleted
/// slots. (About 4× faster than `Dictionary` with SipHash for remote ops and snapshot loads.)
extension PositionStore {
  static let emptySlot = UInt64.max

  /// High 32 bits: the tag; low 32 bits: the home slot (masked by the table size). The counter's
  /// low 3 bits stay the home slot's low 3 bits and only the rest is mixed, so ids that one replica
  /// makes one after another (local ops, a stream of its remote ops) land in one cache line of
  /// slots instead of eight random ones; the tag still differs between them.
  @inline(__always)
  static func hash(_ id: PositionID) -> UInt64 {
    let low = id.counter & 7
    let g = ((id.counter >> 3) &* 0x9E37_79B9_7F4A_7C15) ^ (id.replica.rawValue &* 0xC2B2_AE3D_27D4_EB4F)
    let m = (g ^ (g >> 29)) &* 0xBF58_476D_1CE4_E5B9
    let tag = (m >> 32) ^ (low &* 0x9E37_79B9)
    return tag << 32 | UInt64(UInt32(truncatingIfNeeded: m << 3 | low))
  }

  /// The node of a position id, or nil.
  /// - Complexity: O(1) expected.
  @inline(__always)
  func lookup(_ id: PositionID) -> Int32? {
    let h = PositionStore.hash(id)
    let tag = h >> 32
    let mask = indexSlots.count - 1
    var s = Int(truncatingIfNeeded: h) & mask
    while true {
      let entry = indexSlots[s]
      if entry == PositionStore.emptySlot { return nil }
      if entry >> 32 == tag {
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
    if (indexCount + 1) * 2 > indexSlots.count { growIndex(to: indexSlots.count * 2) }
    let id = nodes[Int(n)].id
    let h = PositionStore.hash(id)
    let tag = h >> 32
    let mask = indexSlots.count - 1
    var s = Int(truncatingIfNeeded: h) & mask
    while true {
      let entry = indexSlots[s]
      if entry == PositionStore.emptySlot { break }
      if entry >> 32 == tag && nodes[Int(Int32(truncatingIfNeeded: entry))].id == id { return false }
      s = (s + 1) & mask
    }
    indexSlots[s] = tag << 32 | UInt64(UInt32(bitPattern: n))
    indexCount += 1
    return true
  }

  /// Adds the nodes `range` (snapshot loads); returns a node whose id was already present, or nil.
  /// Entries are inserted grouped by the region of the table they hash to (a counting sort on the
  /// top bits of their home slot), so the table is written region by region instead of at random:
  /// each region stays in cache while it fills.
  /// - Complexity: O(count) expected.
  mutating func indexInsertAll(_ range: Range<Int32>) -> Int32? {
    reserveIndex(indexCount + range.count)
    let size = indexSlots.count
    let shift = max(0, size.trailingZeroBitCount - PositionStore.bulkRegionBits)
    let regions = (size >> shift)
    var starts = [Int](repeating: 0, count: regions + 1)
    var hashes = [UInt64](repeating: 0, count: range.count)
    nodes.withUnsafeBufferPointer { nodes in
      hashes.withUnsafeMutableBufferPointer { hashes in
        for (k, n) in range.enumerated() {
          let h = PositionStore.hash(nodes[Int(n)].id)
          hashes[k] = h
          starts[(Int(truncatingIfNeeded: h) & (size - 1)) >> shift + 1] += 1
        }
      }
    }
    for r in 0..<regions { starts[r + 1] += starts[r] }
    var sorted = [UInt64](repeating: 0, count: range.count)
    var nodeOf = [Int32](repeating: 0, count: range.count)
    for (k, n) in range.enumerated() {
      let h = hashes[k]
      let r = (Int(truncatingIfNeeded: h) & (size - 1)) >> shift
      sorted[starts[r]] = h
      nodeOf[starts[r]] = n
      starts[r] += 1
    }
    var duplicate: Int32? = nil
    var inserted = 0
    let mask = size - 1
    nodes.withUnsafeBufferPointer { nodes in
      indexSlots.withUnsafeMutableBufferPointer { slots in
        for k in 0..<sorted.count {
          let h = sorted[k]
          let n = nodeOf[k]
          let tag = h >> 32
          var s = Int(truncatingIfNeeded: h) & mask
          while true {
            let entry = slots[s]
            if entry == PositionStore.emptySlot { break }
            if entry >> 32 == tag && nodes[Int(Int32(truncatingIfNeeded: entry))].id == nodes[Int(n)].id {
              duplicate = n
              return
            }
            s = (s + 1) & mask
          }
          slots[s] = tag << 32 | UInt64(UInt32(bitPattern: n))
          inserted += 1
        }
      }
    }
    indexCount += inserted
    return duplicate
  }

  /// log2 of the number of regions `indexInsertAll` groups entries into.
  static let bulkRegionBits = 9

  /// Adds node `n`, whose id is known to be absent: probes only for a free slot.
  mutating func indexInsertNew(_ n: Int32) {
    if (indexCount + 1) * 2 > indexSlots.count { growIndex(to: indexSlots.count * 2) }
    let h = PositionStore.hash(nodes[Int(n)].id)
    let mask = indexSlots.count - 1
    var s = Int(truncatingIfNeeded: h) & mask
    while indexSlots[s] != PositionStore.emptySlot { s = (s + 1) & mask }
    indexSlots[s] = (h >> 32) << 32 | UInt64(UInt32(bitPattern: n))
    indexCount += 1
  }

  /// Makes room for `capacity` entries.
  mutating func reserveIndex(_ capacity: Int) {
    var size = indexSlots.count
    while size < capacity * 2 { size <<= 1 }
    if size > indexSlots.count { growIndex(to: size) }
  }

  private mutating func growIndex(to size: Int) {
    let old = indexSlots
    indexSlots = Array(repeating: PositionStore.emptySlot, count: size)
    indexCount = 0
    for entry in old where entry != PositionStore.emptySlot { indexInsertNew(Int32(truncatingIfNeeded: entry)) }
  }

  /// Every indexed node (tests).
  var indexedNodes: [Int32] {
    indexSlots.filter { $0 != PositionStore.emptySlot }.map { Int32(truncatingIfNeeded: $0) }
  }
}
