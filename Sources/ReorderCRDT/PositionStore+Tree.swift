/// The order tree of each sequence: a counted B+tree over the full order (leaves hold nodes in
/// order, with a visible flag per slot; inner nodes hold, per child, its count of visible nodes).
/// Depth is 3 for 100k positions, so rank, select and visibility changes touch a few short
/// contiguous arrays. Leaves and inner nodes of all sequences share flat arrays.
extension PositionStore {
  /// Slots per leaf and children per inner node.
  static let fanout = 64
  /// Fill of leaves and inner nodes when bulk-building (room left for inserts).
  static let bulkFill = 48

  /// Makes an empty leaf.
  mutating func newLeaf() -> Int32 {
    let leaf = Int32(leafLength.count)
    leafSlots.append(contentsOf: repeatElement(-1, count: PositionStore.fanout))
    leafVisible.append(contentsOf: repeatElement(false, count: PositionStore.fanout))
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

  /// The slot of node `n` in its leaf.
  @inline(__always)
  func slot(of n: Int32) -> Int {
    let leaf = Int(nodeLeaf[Int(n)])
    let base = leaf * PositionStore.fanout
    var k = base
    while leafSlots[k] != n { k += 1 }
    return k - base
  }

  /// The index of `child` among the children of `inner`.
  @inline(__always)
  func childIndex(_ child: Int32, in inner: Int32) -> Int {
    let base = Int(inner) * PositionStore.fanout
    var k = base
    while innerChildren[k] != child { k += 1 }
    return k - base
  }

  /// True when node `n` is visible.
  func isVisible(_ n: Int32) -> Bool {
    leafVisible[Int(nodeLeaf[Int(n)]) * PositionStore.fanout + slot(of: n)]
  }

  /// Inserts the fresh (invisible) node `n` directly after `a` in the full order.
  /// - Complexity: O(log n) (a split now and then).
  @inline(__always)
  mutating func orderInsert(_ n: Int32, after a: Int32) {
    insert(n, leaf: nodeLeaf[Int(a)], at: slot(of: a) + 1)
  }

  /// Inserts the fresh (invisible) node `n` directly before `b` in the full order.
  @inline(__always)
  mutating func orderInsert(_ n: Int32, before b: Int32) {
    insert(n, leaf: nodeLeaf[Int(b)], at: slot(of: b))
  }

  private mutating func insert(_ n: Int32, leaf: Int32, at position: Int) {
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
    leafVisible.withUnsafeMutableBufferPointer { p in
      if moved > 0 { (p.baseAddress! + at + 1).update(from: p.baseAddress! + at, count: moved) }
      p[at] = false
    }
    let owner = nodes[Int(n)].owner
    leafOwner.withUnsafeMutableBufferPointer { p in
      if moved > 0 { (p.baseAddress! + at + 1).update(from: p.baseAddress! + at, count: moved) }
      p[at] = owner
    }
    leafLength[Int(leaf)] += 1
    nodeLeaf[Int(n)] = leaf
  }

  /// Moves the upper half of a full leaf into a new leaf after it; returns the new leaf.
  private mutating func splitLeaf(_ leaf: Int32) -> Int32 {
    let right = newLeaf()
    let half = PositionStore.fanout / 2
    let from = Int(leaf) * PositionStore.fanout
    let to = Int(right) * PositionStore.fanout
    var moved: Int32 = 0
    for k in half..<PositionStore.fanout {
      let n = leafSlots[from + k]
      leafSlots[to + k - half] = n
      leafVisible[to + k - half] = leafVisible[from + k]
      leafOwner[to + k - half] = leafOwner[from + k]
      if leafVisible[from + k] { moved += 1 }
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

  private mutating func appendChild(_ inner: Int32, _ child: Int32, count: Int32) {
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

  /// Marks a node visible or not, updating the counts up to the root.
  /// - Complexity: O(log n).
  /// Returns false when it already was.
  @discardableResult
  @inline(__always)
  mutating func setVisible(_ n: Int32, _ visible: Bool) -> Bool {
    let leaf = nodeLeaf[Int(n)]
    let k = Int(leaf) * PositionStore.fanout + slot(of: n)
    guard leafVisible[k] != visible else { return false }
    leafVisible[k] = visible
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
    let base = Int(leaf) * PositionStore.fanout
    var r = 0
    for k in base..<(base + slot(of: n)) where leafVisible[k] { r += 1 }
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
    var j = Int(x) * PositionStore.fanout
    while true {
      if leafVisible[j] {
        if k == 0 { return j }
        k -= 1
      }
      j += 1
    }
  }

  /// Sets the owner of a node (snapshot loading).
  mutating func setOwner(_ n: Int32, _ owner: Int32) {
    nodes[Int(n)].owner = owner
    leafOwner[Int(nodeLeaf[Int(n)]) * PositionStore.fanout + slot(of: n)] = owner
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
        for k in base..<(base + Int(leafLength[Int(leaf)])) where leafVisible[k] { body(leafOwner[k]) }
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

  /// Builds the order tree of a sequence from its nodes in full order (all invisible). The
  /// sequence's previous root leaf (holding just the sentinel) is reused as the first leaf.
  mutating func bulkBuild(_ sequence: Int32, order: [Int32]) {
    let leaves = (order.count + PositionStore.bulkFill - 1) / PositionStore.bulkFill
    let slots = (leafLength.count + leaves) * PositionStore.fanout
    leafSlots.reserveCapacity(slots)
    leafVisible.reserveCapacity(slots)
    leafOwner.reserveCapacity(slots)
    leafLength.reserveCapacity(leafLength.count + leaves)
    leafCount.reserveCapacity(leafLength.count + leaves)
    leafParent.reserveCapacity(leafLength.count + leaves)
    leafNext.reserveCapacity(leafLength.count + leaves)
    leafPrev.reserveCapacity(leafLength.count + leaves)
    // Leaves come out of `newLeaf()` empty, invisible and ownerless; the first reuses the root
    // leaf (which holds the sentinel). Fill slots and node → leaf links in one pass per array.
    var level: [Int32] = [roots[Int(sequence)]]
    for _ in 1..<max(leaves, 1) { level.append(newLeaf()) }
    let fill = PositionStore.bulkFill
    leafSlots.withUnsafeMutableBufferPointer { slots in
      for (j, leaf) in level.enumerated() {
        let base = Int(leaf) * PositionStore.fanout
        for k in (j * fill)..<min((j + 1) * fill, order.count) { slots[base + k - j * fill] = order[k] }
      }
    }
    nodeLeaf.withUnsafeMutableBufferPointer { links in
      for (j, leaf) in level.enumerated() {
        for k in (j * fill)..<min((j + 1) * fill, order.count) { links[Int(order[k])] = leaf }
      }
    }
    for (j, leaf) in level.enumerated() {
      leafLength[Int(leaf)] = Int32(min((j + 1) * fill, order.count) - j * fill)
      leafCount[Int(leaf)] = 0
      leafPrev[Int(leaf)] = j > 0 ? level[j - 1] : -1
      leafNext[Int(leaf)] = j + 1 < level.count ? level[j + 1] : -1
    }
    if level.count == 1 {
      rootIsLeaf[Int(sequence)] = true
      return
    }
    var overLeaves = true
    while level.count > 1 {
      var next: [Int32] = []
      var k = 0
      while k < level.count {
        let inner = newInner(childrenAreLeaves: overLeaves)
        for child in level[k..<min(k + PositionStore.bulkFill, level.count)] { appendChild(inner, child, count: 0) }
        next.append(inner)
        k += PositionStore.bulkFill
      }
      level = next
      overLeaves = false
    }
    roots[Int(sequence)] = level[0]
    rootIsLeaf[Int(sequence)] = false
  }

  /// Checks one sequence's order tree (links, lengths, counts, equal leaf depth, leaf chain);
  /// returns its number of nodes.
  func checkOrderTree(_ sequence: Int32) -> Int {
    var leaves: [Int32] = []
    var leafDepth = -1
    var nodeCount = 0
    func visit(_ x: Int32, isLeaf: Bool, parent: Int32, depth: Int) -> Int32 {
      if isLeaf {
        precondition(leafParent[Int(x)] == parent, "leaf parent link")
        let length = Int(leafLength[Int(x)])
        precondition(length >= 1 && length <= PositionStore.fanout, "leaf length")
        precondition(leafDepth < 0 || leafDepth == depth, "leaves at one depth")
        leafDepth = depth
        var visible: Int32 = 0
        for k in 0..<length {
          let n = leafSlots[Int(x) * PositionStore.fanout + k]
          precondition(nodeLeaf[Int(n)] == x && nodes[Int(n)].sequence == sequence, "node's leaf and sequence")
          precondition(leafOwner[Int(x) * PositionStore.fanout + k] == nodes[Int(n)].owner, "leaf owner")
          if leafVisible[Int(x) * PositionStore.fanout + k] { visible += 1 }
        }
        precondition(leafCount[Int(x)] == visible, "leaf visible count")
        leaves.append(x)
        nodeCount += length
        return visible
      }
      precondition(innerParent[Int(x)] == parent, "inner parent link")
      let length = Int(innerLength[Int(x)])
      precondition(length >= 1 && length <= PositionStore.fanout, "inner length")
      var total: Int32 = 0
      for k in 0..<length {
        let child = innerChildren[Int(x) * PositionStore.fanout + k]
        let count = visit(child, isLeaf: innerOverLeaves[Int(x)], parent: x, depth: depth + 1)
        precondition(innerCounts[Int(x) * PositionStore.fanout + k] == count, "inner child counts")
        total += count
      }
      return total
    }
    _ = visit(roots[Int(sequence)], isLeaf: rootIsLeaf[Int(sequence)], parent: -1, depth: 0)
    var chain: [Int32] = []
    var leaf = firstLeaf(sequence)
    var previous: Int32 = -1
    while leaf >= 0 {
      precondition(leafPrev[Int(leaf)] == previous, "leaf chain back links")
      chain.append(leaf)
      previous = leaf
      leaf = leafNext[Int(leaf)]
    }
    precondition(chain == leaves, "leaf chain equals the tree's leaves")
    return nodeCount
  }
}
