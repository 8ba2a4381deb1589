/// Order-tree queries and visibility: rank, select, neighbours, iteration.
extension PositionStore {
  /// Marks a node visible or not, updating the counts up to the root.
  /// - Complexity: O(log n).
  /// Returns false when it already was.
  @discardableResult
  @inline(__always)
  mutating func setVisible(_ n: Int32, _ visible: Bool) -> Bool {
    let leaf = nodeLeaf[Int(n)]
    let bit = UInt64(1) << UInt64(slot(of: n))
    let mask = leafMask[Int(leaf)]
    guard (mask & bit != 0) != visible else { return false }
    leafMask[Int(leaf)] = mask ^ bit
    let delta: Int32 = visible ? 1 : -1
    leafCount[Int(leaf)] += delta
    var child = leaf
    var inner = leafParent[Int(leaf)]
    while inner >= 0 {
      innerCounts[Int(inner) * PositionStore.fanout + childIndex(child, in: inner)] += delta
      child = inner
      inner = innerParent[Int(inner)]
    }
    return true
  }

  /// Number of visible nodes before `n` in its sequence (its visible index when visible).
  /// - Complexity: O(log n).
  @inline(__always)
  func rank(_ n: Int32) -> Int {
    let leaf = nodeLeaf[Int(n)]
    var r = (leafMask[Int(leaf)] & PositionStore.lowBits(slot(of: n))).nonzeroBitCount
    var child = leaf
    var inner = leafParent[Int(leaf)]
    while inner >= 0 {
      let ib = Int(inner) * PositionStore.fanout
      for k in ib..<(ib + childIndex(child, in: inner)) { r += Int(innerCounts[k]) }
      child = inner
      inner = innerParent[Int(inner)]
    }
    return r
  }

  /// The visible node at visible index `k` of a sequence.
  /// - Complexity: O(log n).
  func select(_ sequence: Int32, _ k: Int) -> Int32? {
    selectSlot(sequence, k).map { leafSlots[$0] }
  }

  /// The owner (item or list number) of the visible node at visible index `k`, without touching
  /// the node itself.
  @inline(__always)
  func selectOwner(_ sequence: Int32, _ k: Int) -> Int32? {
    selectSlot(sequence, k).map { leafOwner[$0] }
  }

  /// The global leaf slot of the visible node at visible index `k`.
  @inline(__always)
  private func selectSlot(_ sequence: Int32, _ k: Int) -> Int? {
    guard k >= 0, k < visibleCount(sequence) else { return nil }
    var k = Int32(k)
    var x = roots[Int(sequence)]
    if !rootIsLeaf[Int(sequence)] {
      while true {
        let base = Int(x) * PositionStore.fanout
        var j = base
        while k >= innerCounts[j] {
          k -= innerCounts[j]
          j += 1
        }
        let overLeaves = innerOverLeaves[Int(x)]
        x = innerChildren[j]
        if overLeaves { break }
      }
    }
    var mask = leafMask[Int(x)]
    while k > 0 {
      mask &= mask - 1
      k -= 1
    }
    return Int(x) * PositionStore.fanout + mask.trailingZeroBitCount
  }

  /// Visible nodes in a sequence.
  @inline(__always)
  func visibleCount(_ sequence: Int32) -> Int {
    let root = roots[Int(sequence)]
    return Int(rootIsLeaf[Int(sequence)] ? leafCount[Int(root)] : subtreeCount(root))
  }

  /// The next node in the full order, or nil at the end.
  @inline(__always)
  func successor(_ n: Int32) -> Int32? {
    let leaf = nodeLeaf[Int(n)]
    let k = slot(of: n)
    if k + 1 < Int(leafLength[Int(leaf)]) { return leafSlots[Int(leaf) * PositionStore.fanout + k + 1] }
    let next = leafNext[Int(leaf)]
    return next >= 0 ? leafSlots[Int(next) * PositionStore.fanout] : nil
  }

  /// The previous node in the full order, or nil at the start (only the sentinel has none).
  @inline(__always)
  func predecessor(_ n: Int32) -> Int32? {
    let leaf = nodeLeaf[Int(n)]
    let k = slot(of: n)
    if k > 0 { return leafSlots[Int(leaf) * PositionStore.fanout + k - 1] }
    let previous = leafPrev[Int(leaf)]
    return previous >= 0 ? leafSlots[Int(previous) * PositionStore.fanout + Int(leafLength[Int(previous)]) - 1] : nil
  }

  /// The first leaf of a sequence.
  func firstLeaf(_ sequence: Int32) -> Int32 {
    var x = roots[Int(sequence)]
    if rootIsLeaf[Int(sequence)] { return x }
    while true {
      let overLeaves = innerOverLeaves[Int(x)]
      x = innerChildren[Int(x) * PositionStore.fanout]
      if overLeaves { return x }
    }
  }

  /// The last node of a sequence's full order (the sentinel when empty).
  func last(_ sequence: Int32) -> Int32 {
    var x = roots[Int(sequence)]
    if !rootIsLeaf[Int(sequence)] {
      while true {
        let overLeaves = innerOverLeaves[Int(x)]
        x = innerChildren[Int(x) * PositionStore.fanout + Int(innerLength[Int(x)]) - 1]
        if overLeaves { break }
      }
    }
    return leafSlots[Int(x) * PositionStore.fanout + Int(leafLength[Int(x)]) - 1]
  }

  /// Calls `body` with the owner of each visible node of a sequence in order, skipping leaves
  /// with none.
  /// - Complexity: O(positions / fanout + visible).
  func forEachVisibleOwner(_ sequence: Int32, _ body: (Int32) -> Void) {
    var leaf = firstLeaf(sequence)
    while leaf >= 0 {
      if leafCount[Int(leaf)] > 0 {
        let base = Int(leaf) * PositionStore.fanout
        var mask = leafMask[Int(leaf)]
        while mask != 0 {
          body(leafOwner[base + mask.trailingZeroBitCount])
          mask &= mask - 1
        }
      }
      leaf = leafNext[Int(leaf)]
    }
  }

  /// Every node of a sequence in full order (tests and snapshots).
  func fullOrder(_ sequence: Int32) -> [Int32] {
    var out: [Int32] = []
    var leaf = firstLeaf(sequence)
    while leaf >= 0 {
      let base = Int(leaf) * PositionStore.fanout
      out.append(contentsOf: leafSlots[base..<(base + Int(leafLength[Int(leaf)]))])
      leaf = leafNext[Int(leaf)]
    }
    return out
  }
}
