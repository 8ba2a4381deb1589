/// The order tree of each sequence: a counted B+tree over the full order (leaves hold nodes in
/// order, with a visible flag per slot; inner nodes hold, per child, its count of visible nodes).
/// Depth is 3 for 100k positions, so rank, select and visibility changes touch a few short
/// contiguous arrays. Leaves and inner nodes of all sequences share flat arrays.
extension PositionStore {
  /// Slots per leaf and children per inner node.
  static let fanout = 64
  /// Fill of leaves and inner nodes when bulk-building (room left for inserts).
  static let bulkFill = 48

  /// A mask of the bits below bit `k` (k in 0...64).
  @inline(__always)
  static func lowBits(_ k: Int) -> UInt64 { k >= 64 ? ~0 : (1 << UInt64(k)) - 1 }

  /// Makes an empty leaf.
  mutating func newLeaf() -> Int32 {
    let leaf = Int32(leafLength.count)
    leafSlots.append(contentsOf: repeatElement(-1, count: PositionStore.fanout))
    leafMask.append(0)
    leafOwner.append(contentsOf: repeatElement(-1, count: PositionStore.fanout))
    leafLength.append(0)
    leafCount.append(0)
    leafParent.append(-1)
    leafNext.append(-1)
    leafPrev.append(-1)
    return leaf
  }

  /// Makes an empty inner node.
  mutating func newInner(childrenAreLeaves: Bool) -> Int32 {
    let inner = Int32(innerLength.count)
    innerChildren.append(contentsOf: repeatElement(-1, count: PositionStore.fanout))
    innerCounts.append(contentsOf: repeatElement(0, count: PositionStore.fanout))
    innerLength.append(0)
    innerParent.append(-1)
    innerOverLeaves.append(childrenAreLeaves)
    return inner
  }

  /// The slot of node `n` in its leaf: compares 8 slots at a time (unused slots hold -1, and the
  /// node is always there, so the scan needs no bound).
  @inline(__always)
  func slot(of n: Int32) -> Int {
    PositionStore.position(of: n, in: leafSlots, at: Int(nodeLeaf[Int(n)]) * PositionStore.fanout)
  }

  /// The offset from `base` of the first `value` in `array`, which must be present within `fanout`
  /// entries: compares 8 entries at a time.
  @inline(__always)
  static func position(of value: Int32, in array: [Int32], at base: Int) -> Int {
    array.withUnsafeBufferPointer { array in
      let start = UnsafeRawPointer(array.baseAddress! + base)
      let target = SIMD8<Int32>(repeating: value)
      var k = 0
      while true {
        let hits = start.loadUnaligned(fromByteOffset: k * 4, as: SIMD8<Int32>.self) .== target
        if any(hits) {
          for j in 0..<8 where hits[j] { return k + j }
        }
        k += 8
      }
    }
  }

  /// The index of `child` among the children of `inner`.
  @inline(__always)
  func childIndex(_ child: Int32, in inner: Int32) -> Int {
    PositionStore.position(of: child, in: innerChildren, at: Int(inner) * PositionStore.fanout)
  }

  /// True when node `n` is visible.
  func isVisible(_ n: Int32) -> Bool {
    leafMask[Int(nodeLeaf[Int(n)])] >> UInt64(slot(of: n)) & 1 == 1
  }

  /// Inserts the fresh (invisible) node `n` directly after `a` in the full order; returns its slot
  /// in its leaf.
  /// - Complexity: O(log n) (a split now and then).
  @inline(__always)
  mutating func orderInsert(_ n: Int32, after a: Int32, owner: Int32) -> Int {
    insert(n, leaf: nodeLeaf[Int(a)], at: slot(of: a) + 1, owner: owner)
  }

  /// Inserts the fresh (invisible) node `n` directly before `b` in the full order; returns its slot
  /// in its leaf.
  @inline(__always)
  mutating func orderInsert(_ n: Int32, before b: Int32, owner: Int32) -> Int {
    insert(n, leaf: nodeLeaf[Int(b)], at: slot(of: b), owner: owner)
  }

  private mutating func insert(_ n: Int32, leaf: Int32, at position: Int, owner: Int32) -> Int {
    var leaf = leaf
    var k = position
    if Int(leafLength[Int(leaf)]) == PositionStore.fanout {
      let right = splitLeaf(leaf)
      let half = Int(leafLength[Int(leaf)])
      if k > half {
        leaf = right
        k -= half
      }
    }
    let base = Int(leaf) * PositionStore.fanout
    let length = Int(leafLength[Int(leaf)])
    let at = base + k
    let moved = length - k
    // Shift the tail one slot right: one uniqueness check per array, not one per element.
    leafSlots.withUnsafeMutableBufferPointer { p in
      if moved > 0 { (p.baseAddress! + at + 1).update(from: p.baseAddress! + at, count: moved) }
      p[at] = n
    }
    // Bits from k up move one place left (the leaf is not full, so bit 63 is clear).
    let mask = leafMask[Int(leaf)]
    let low = PositionStore.lowBits(k)
    leafMask[Int(leaf)] = (mask & low) | ((mask & ~low) << 1)
    leafOwner.withUnsafeMutableBufferPointer { p in
      if moved > 0 { (p.baseAddress! + at + 1).update(from: p.baseAddress! + at, count: moved) }
      p[at] = owner
    }
    leafLength[Int(leaf)] += 1
    nodeLeaf[Int(n)] = leaf
    return k
  }

  /// Moves the upper half of a full leaf into a new leaf after it; returns the new leaf.
  private mutating func splitLeaf(_ leaf: Int32) -> Int32 {
    let right = newLeaf()
    let half = PositionStore.fanout / 2
    let from = Int(leaf) * PositionStore.fanout
    let to = Int(right) * PositionStore.fanout
    let mask = leafMask[Int(leaf)]
    leafMask[Int(leaf)] = mask & PositionStore.lowBits(half)
    leafMask[Int(right)] = mask >> UInt64(half)
    let moved = Int32((mask >> UInt64(half)).nonzeroBitCount)
    for k in half..<PositionStore.fanout {
      let n = leafSlots[from + k]
      leafSlots[to + k - half] = n
      leafOwner[to + k - half] = leafOwner[from + k]
      nodeLeaf[Int(n)] = right
      leafSlots[from + k] = -1
    }
    leafLength[Int(leaf)] = Int32(half)
    leafLength[Int(right)] = Int32(PositionStore.fanout - half)
    leafCount[Int(leaf)] -= moved
    leafCount[Int(right)] = moved
    let next = leafNext[Int(leaf)]
    leafNext[Int(right)] = next
    leafPrev[Int(right)] = leaf
    if next >= 0 { leafPrev[Int(next)] = right }
    leafNext[Int(leaf)] = right
    let parent = leafParent[Int(leaf)]
    if parent < 0 {
      let sequence = nodes[Int(leafSlots[from])].sequence
      let root = newInner(childrenAreLeaves: true)
      appendChild(root, leaf, count: leafCount[Int(leaf)])
      appendChild(root, right, count: moved)
      roots[Int(sequence)] = root
      rootIsLeaf[Int(sequence)] = false
    } else {
      insertChild(right, count: moved, after: leaf, in: parent)
    }
    return right
  }

  mutating func appendChild(_ inner: Int32, _ child: Int32, count: Int32) {
    let k = Int(inner) * PositionStore.fanout + Int(innerLength[Int(inner)])
    innerChildren[k] = child
    innerCounts[k] = count
    innerLength[Int(inner)] += 1
    if innerOverLeaves[Int(inner)] { leafParent[Int(child)] = inner } else { innerParent[Int(child)] = inner }
  }

  /// Inserts `child` (with `count` visible nodes, taken from `previous`) right after `previous`.
  private mutating func insertChild(_ child: Int32, count: Int32, after previous: Int32, in inner: Int32) {
    var inner = inner
    if Int(innerLength[Int(inner)]) == PositionStore.fanout {
      let right = splitInner(inner)
      if !contains(inner, previous) { inner = right }
    }
    let base = Int(inner) * PositionStore.fanout
    let k = childIndex(previous, in: inner)
    let length = Int(innerLength[Int(inner)])
    var j = base + length
    while j > base + k + 1 {
      innerChildren[j] = innerChildren[j - 1]
      innerCounts[j] = innerCounts[j - 1]
      j -= 1
    }
    innerChildren[base + k + 1] = child
    innerCounts[base + k + 1] = count
    innerCounts[base + k] -= count
    innerLength[Int(inner)] += 1
    if innerOverLeaves[Int(inner)] { leafParent[Int(child)] = inner } else { innerParent[Int(child)] = inner }
  }

  private func contains(_ inner: Int32, _ child: Int32) -> Bool {
    let base = Int(inner) * PositionStore.fanout
    for k in base..<(base + Int(innerLength[Int(inner)])) where innerChildren[k] == child { return true }
    return false
  }

  /// Moves the upper half of a full inner node into a new inner node after it.
  private mutating func splitInner(_ inner: Int32) -> Int32 {
    let overLeaves = innerOverLeaves[Int(inner)]
    let right = newInner(childrenAreLeaves: overLeaves)
    let half = PositionStore.fanout / 2
    let from = Int(inner) * PositionStore.fanout
    var moved: Int32 = 0
    for k in half..<PositionStore.fanout {
      moved += innerCounts[from + k]
      appendChild(right, innerChildren[from + k], count: innerCounts[from + k])
      innerChildren[from + k] = -1
      innerCounts[from + k] = 0
    }
    innerLength[Int(inner)] = Int32(half)
    let parent = innerParent[Int(inner)]
    if parent < 0 {
      var first = inner
      var overLeavesAtFirst = overLeaves
      while !overLeavesAtFirst {
        first = innerChildren[Int(first) * PositionStore.fanout]
        overLeavesAtFirst = innerOverLeaves[Int(first)]
      }
      let leaf = innerChildren[Int(first) * PositionStore.fanout]
      let sequence = nodes[Int(leafSlots[Int(leaf) * PositionStore.fanout])].sequence
      let root = newInner(childrenAreLeaves: false)
      appendChild(root, inner, count: 0)
      appendChild(root, right, count: moved)
      innerCounts[Int(root) * PositionStore.fanout] = subtreeCount(inner)
      roots[Int(sequence)] = root
    } else {
      insertChild(right, count: moved, after: inner, in: parent)
    }
    return right
  }

  func subtreeCount(_ inner: Int32) -> Int32 {
    let base = Int(inner) * PositionStore.fanout
    var total: Int32 = 0
    for k in base..<(base + Int(innerLength[Int(inner)])) { total += innerCounts[k] }
    return total
  }
}
