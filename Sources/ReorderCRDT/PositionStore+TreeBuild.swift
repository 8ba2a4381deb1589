/// Bulk-building the order tree (snapshot loads) and checking it (tests).
extension PositionStore {
  /// Builds the order tree of a sequence whose nodes, in full order, are `first ..< first + count`
  /// (all invisible). The sequence's previous root leaf (holding just the sentinel) is reused as the
  /// first leaf. Node `first + k` lands in slot `k % bulkFill` of its leaf.
  mutating func bulkBuild(_ sequence: Int32, first: Int32, count: Int) {
    let leaves = (count + PositionStore.bulkFill - 1) / PositionStore.bulkFill
    let slots = (leafLength.count + leaves) * PositionStore.fanout
    leafSlots.reserveCapacity(slots)
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
        for k in (j * fill)..<min((j + 1) * fill, count) { slots[base + k - j * fill] = first + Int32(k) }
      }
    }
    nodeLeaf.withUnsafeMutableBufferPointer { links in
      for (j, leaf) in level.enumerated() {
        for k in (j * fill)..<min((j + 1) * fill, count) { links[Int(first) + k] = leaf }
      }
    }
    for (j, leaf) in level.enumerated() {
      leafLength[Int(leaf)] = Int32(min((j + 1) * fill, count) - j * fill)
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

  /// Sets the owner and visibility of node `n`, the `k`-th node in the full order of a bulk-built
  /// sequence (so its slot is `k % bulkFill`: no search). Counts stay stale until ``recount()``.
  /// Returns false (changing nothing) when the node already has an owner.
  /// - Complexity: O(1).
  mutating func setLoaded(_ n: Int32, index k: Int, owner: Int32, visible: Bool) -> Bool {
    let leaf = Int(nodeLeaf[Int(n)])
    let slot = k % PositionStore.bulkFill
    let at = leaf * PositionStore.fanout + slot
    guard leafOwner[at] < 0 else { return false }
    leafOwner[at] = owner
    nodes[Int(n)].owner = owner
    if visible { leafMask[leaf] |= 1 << UInt64(slot) }
    return true
  }

  /// Recomputes every leaf's and inner node's visible counts from the leaf masks (after
  /// ``setLoaded(_:index:owner:visible:)``). Relies on `bulkBuild` making each inner node after its
  /// children, so one pass in index order sees children's totals first.
  /// - Complexity: O(leaves + inner nodes × fanout).
  mutating func recount() {
    for leaf in leafMask.indices { leafCount[leaf] = Int32(leafMask[leaf].nonzeroBitCount) }
    for inner in innerLength.indices {
      let base = inner * PositionStore.fanout
      for k in base..<(base + Int(innerLength[inner])) {
        let child = Int(innerChildren[k])
        innerCounts[k] = innerOverLeaves[inner] ? leafCount[child] : subtreeCount(Int32(child))
      }
    }
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
          if leafMask[Int(x)] >> UInt64(k) & 1 == 1 { visible += 1 }
        }
        precondition(leafCount[Int(x)] == visible, "leaf visible count")
        precondition(leafMask[Int(x)] & ~PositionStore.lowBits(length) == 0, "no visible bits past the leaf's end")
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
