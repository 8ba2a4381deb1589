/// Position id → node: an open-addressing hash table (linear probing, multiplicative hash). Each
/// slot is 8 bytes: the node number and 32 bits of the id's hash as a tag; the id itself is only
/// read from the node when the tag matches. Positions are never removed, so there are no deleted
/// slots. (About 4× faster than `Dictionary` with SipHash for remote ops and snapshot loads.)
extension PositionStore {
  static let emptySlot = UInt64.max

  @inline(__always)
  static func hash(_ id: PositionID) -> UInt64 {
    let h = (id.counter &* 0x9E37_79B9_7F4A_7C15) ^ (id.replica.rawValue &* 0xC2B2_AE3D_27D4_EB4F)
    return (h ^ (h >> 29)) &* 0xBF58_476D_1CE4_E5B9
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
