/// Position id → node: an open-addressing hash table of node numbers (linear probing,
/// multiplicative hash). Keys are not stored: a slot's key is the id of the node it holds, so the
/// table is 4 bytes per slot (1 MB for 100k positions) and stays in cache. Positions are never
/// removed, so there are no deleted slots.
extension PositionStore {
  @inline(__always)
  func indexSlot(_ id: PositionID) -> Int {
    let h = (id.counter &* 0x9E37_79B9_7F4A_7C15) ^ (id.replica.rawValue &* 0xC2B2_AE3D_27D4_EB4F)
    let m = (h ^ (h >> 29)) &* 0xBF58_476D_1CE4_E5B9
    return Int(truncatingIfNeeded: m >> 32) & (indexSlots.count - 1)
  }

  /// The node of a position id, or nil.
  /// - Complexity: O(1) expected.
  func lookup(_ id: PositionID) -> Int32? {
    var s = indexSlot(id)
    let mask = indexSlots.count - 1
    while true {
      let n = indexSlots[s]
      if n < 0 { return nil }
      if nodes[Int(n)].id == id { return n }
      s = (s + 1) & mask
    }
  }

  /// Adds node `n` under its id; returns false (adding nothing) when the id is already present.
  /// - Complexity: O(1) amortized.
  @discardableResult
  mutating func indexInsert(_ n: Int32) -> Bool {
    if (indexCount + 1) * 2 > indexSlots.count { growIndex(to: max(16, indexSlots.count * 2)) }
    let id = nodes[Int(n)].id
    var s = indexSlot(id)
    let mask = indexSlots.count - 1
    while true {
      let m = indexSlots[s]
      if m < 0 { break }
      if nodes[Int(m)].id == id { return false }
      s = (s + 1) & mask
    }
    indexSlots[s] = n
    indexCount += 1
    return true
  }

  /// Adds node `n`, whose id is known to be absent: probes only for a free slot.
  mutating func indexInsertNew(_ n: Int32) {
    if (indexCount + 1) * 2 > indexSlots.count { growIndex(to: max(16, indexSlots.count * 2)) }
    var s = indexSlot(nodes[Int(n)].id)
    let mask = indexSlots.count - 1
    while indexSlots[s] >= 0 { s = (s + 1) & mask }
    indexSlots[s] = n
    indexCount += 1
  }

  /// Makes room for `capacity` entries.
  mutating func reserveIndex(_ capacity: Int) {
    var size = max(16, indexSlots.count)
    while size < capacity * 2 { size <<= 1 }
    if size > indexSlots.count { growIndex(to: size) }
  }

  private mutating func growIndex(to size: Int) {
    let old = indexSlots
    indexSlots = Array(repeating: -1, count: size)
    let mask = size - 1
    for n in old where n >= 0 {
      var s = indexSlot(nodes[Int(n)].id)
      while indexSlots[s] >= 0 { s = (s + 1) & mask }
      indexSlots[s] = n
    }
  }

  /// Every indexed node (tests).
  var indexedNodes: [Int32] { indexSlots.filter { $0 >= 0 } }
}
