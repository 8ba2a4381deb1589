/// Order-tree queries and visibility: rank, select, neighbours, iteration.
extension PositionStore {
  /// Marks a node visible or not, updating the counts up to the root.
  /// - Complexity: O(log n).
  /// Returns false when it already was.
  @discardableResult
  @inline(__always)
  mutating func setVisible(_ n: Int32, _ visible: Bool) -> Bool {
    setVisible(n, visible, slot: slot(of: n))
  }

  /// ``setVisible(_:_:)`` for a node whose slot in its leaf is known.
  @discardableResult
  @inline(__always)
  mutating func setVisible(_ n: Int32, _ visible: Bool, slot: Int) -> Bool {
    let leaf = nodeLeaf[Int(n)]
    let bit = UInt64(1) << UInt64(slot)
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

  /// Makes the visible node `a` invisible and the invisible node `b` of the same sequence visible,
  /// whose slot in its leaf is `slotOfB`. Counts change only below the lowest common ancestor of
  /// their leaves (nowhere when they share a leaf), so most moves touch one or two levels.
  /// - Complexity: O(log n).
  @inline(__always)
  mutating func moveVisible(from a: Int32, to b: Int32, slotOfB: Int) {
    var childA = nodeLeaf[Int(a)]
    var childB = nodeLeaf[Int(b)]
    leafMask[Int(childA)] &= ~(UInt64(1) << UInt64(slot(of: a)))
    leafMask[Int(childB)] |= UInt64(1) << UInt64(slotOfB)
    guard childA != childB else { return }
    leafCount[Int(childA)] -= 1
    leafCount[Int(childB)] += 1
    // All leaves are at one depth, so both paths reach the common ancestor together.
    var parentA = leafParent[Int(childA)]
    var parentB = leafParent[Int(childB)]
    while parentA != parentB {
      innerCounts[Int(parentA) * PositionStore.fanout + childIndex(childA, in: parentA)] -= 1
      innerCounts[Int(parentB) * PositionStore.fanout + childIndex(childB, in: parentB)] += 1
      childA = parentA
      childB = parentB
      parentA = innerParent[Int(parentA)]
      parentB = innerParent[Int(parentB)]
    }
    innerCounts[Int(parentA) * PositionStore.fanout + childIndex(childA, in: parentA)] -= 1
    innerCounts[Int(parentA) * PositionStore.fanout + childIndex(childB, in: parentA)] += 1
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
  /// The bound is checked at the root (a child's counts add up to its parent's, so below the root
  /// the descent always lands).
  @inline(__always)
  private func selectSlot(_ sequence: Int32, _ k: Int) -> Int? {
    guard k >= 0, k <= Int(Int32.max) else { return nil }
    var k = Int32(k)
    var x = roots[Int(sequence)]
    if rootIsLeaf[Int(sequence)] {
      guard k < leafCount[Int(x)] else { return nil }
    } else {
      guard let j = PositionStore.childHolding(&k, in: innerCounts, at: Int(x) * PositionStore.fanout) else {
        return nil
      }
      var child = j
      while true {
        let overLeaves = innerOverLeaves[Int(x)]
        x = innerChildren[child]
        if overLeaves { break }
        child = PositionStore.childHolding(&k, in: innerCounts, at: Int(x) * PositionStore.fanout)!
      }
    }
    return Int(x) * PositionStore.fanout + PositionStore.selectBit(leafMask[Int(x)], Int(k))
  }

  /// The index (into `counts`) of the child of the inner node whose counts start at `base` that
  /// holds visible index `k`, and `k` made relative to that child; nil when `k` is past the node's
  /// total. Skips 8 children at a time by their sum (unused child slots count 0).
  @inline(__always)
  static func childHolding(_ k: inout Int32, in counts: [Int32], at base: Int) -> Int? {
    counts.withUnsafeBufferPointer { counts in
      let start = UnsafeRawPointer(counts.baseAddress! + base)
      var chunk = 0
      while chunk < PositionStore.fanout {
        let sum = start.loadUnaligned(fromByteOffset: chunk * 4, as: SIMD8<Int32>.self).wrappedSum()
        if k < sum { break }
        k -= sum
        chunk += 8
      }
      guard chunk < PositionStore.fanout else { return nil }
      var j = base + chunk
      while k >= counts[j] {
        k -= counts[j]
        j += 1
      }
      return j
    }
  }

  /// The position of the `k`-th set bit (from 0) of `x`, which has more than `k` set bits
  /// (broadword select: byte-wise popcounts and their prefix sums in one multiply find the byte, a
  /// short loop the bit; no popcount instruction is assumed).
  @inline(__always)
  static func selectBit(_ x: UInt64, _ k: Int) -> Int {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    var s = x &- ((x >> 1) & 0x5555_5555_5555_5555)
    s = (s & 0x3333_3333_3333_3333) &+ ((s >> 2) & 0x3333_3333_3333_3333)
    s = (s &+ (s >> 4)) & 0x0F0F_0F0F_0F0F_0F0F
    // Byte i of `sums` = set bits in bytes 0...i (at most 64, so no carries between bytes).
    let sums = s &* ones
    // High bit of byte i set iff sums_i <= k (k < 64: no borrows between bytes).
    let atMostK = ((UInt64(k) &* ones | highs) &- sums) & highs
    let byte = Int(((atMostK >> 7) &* ones) >> 56)
    var rest = byte == 0 ? k : k - Int((sums >> UInt64(8 * (byte - 1))) & 0xFF)
    var bits = (x >> UInt64(8 * byte)) & 0xFF
    while rest > 0 {
      bits &= bits - 1
      rest -= 1
    }
    return 8 * byte + bits.trailingZeroBitCount
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
