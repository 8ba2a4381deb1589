/// All positions of a board: one Fugue tree per sequence, and over each tree's total order a
/// counted B+tree (the *order tree*) that counts visible positions.
///
/// Two index spaces, as in loro: the *full order* (every position ever created in the sequence,
/// tombstones included, plus a virtual sentinel root that is always first) and the *visible index*
/// (only positions that are the current place of a live item or list). The Fugue tree decides the
/// full order; the order tree stores that order explicitly (leaves left to right = full order) with
/// counts of visible positions per subtree, so rank, select and visibility changes cost O(log n).
///
/// Nodes of every sequence share one array; a node is addressed by its `Int32` index.
struct PositionStore: Sendable {
  /// One position.
  struct Node: Sendable {
    /// The id of the op that created it (unused for sentinels).
    var id: PositionID
    /// The item (or list, in sequence 0) whose op created it; -1 when unknown (after a snapshot
    /// load, for tombstones).
    var owner: Int32
    /// The sequence it belongs to.
    var sequence: Int32
    /// Fugue parent (-1 for a sentinel).
    var parent: Int32
    /// First Fugue child on the left / right (siblings are sorted by ascending id).
    var firstLeft: Int32
    var firstRight: Int32
    /// Next Fugue sibling on the same side of the same parent.
    var next: Int32
    /// Side of the Fugue parent.
    var side: Side
  }

  var nodes: [Node] = []
  /// The order-tree leaf holding each node (apart from `nodes`: it is the hottest field).
  var nodeLeaf: [Int32] = []
  /// Order-tree root per sequence (a leaf when `rootIsLeaf`, else an inner node).
  var roots: [Int32] = []
  var rootIsLeaf: [Bool] = []
  /// Leaves: `fanout` slots each (node, visible flag), length, visible count, links.
  var leafSlots: [Int32] = []
  /// Visible flags of each leaf's slots as one bit mask (bit k = slot k), so a leaf's rank and
  /// select are a popcount and a few bit operations.
  var leafMask: [UInt64] = []
  /// Owner of each slot's node (copied from the node, so queries need not touch nodes).
  var leafOwner: [Int32] = []
  var leafLength: [Int32] = []
  var leafCount: [Int32] = []
  var leafParent: [Int32] = []
  var leafNext: [Int32] = []
  var leafPrev: [Int32] = []
  /// Inner nodes: `fanout` children each with the child's visible count, length, parent.
  var innerChildren: [Int32] = []
  var innerCounts: [Int32] = []
  var innerLength: [Int32] = []
  var innerParent: [Int32] = []
  var innerOverLeaves: [Bool] = []
  /// Sentinel (Fugue root, first in full order) per sequence.
  var sentinels: [Int32] = []
  /// Position id → node (see `PositionIndex.swift`).
  var indexSlots = [UInt64](repeating: PositionStore.emptySlot, count: 16)
  var indexCount = 0

  /// Number of sequences.
  var sequenceCount: Int { roots.count }

  mutating func newNode(id: PositionID, sequence: Int32, parent: Int32, side: Side, owner: Int32) -> Int32 {
    let n = Int32(nodes.count)
    nodeLeaf.append(-1)
    nodes.append(
      Node(
        id: id, owner: owner, sequence: sequence, parent: parent, firstLeft: -1, firstRight: -1, next: -1,
        side: side))
    return n
  }

  /// Adds an empty sequence (just its sentinel) and returns its index.
  /// - Complexity: O(1).
  mutating func addSequence() -> Int32 {
    let s = Int32(roots.count)
    let n = newNode(id: PositionID(replica: ReplicaID(0), counter: 0), sequence: s, parent: -1, side: .right, owner: -1)
    let leaf = newLeaf()
    leafSlots[Int(leaf) * PositionStore.fanout] = n
    leafLength[Int(leaf)] = 1
    nodeLeaf[Int(n)] = leaf
    roots.append(leaf)
    rootIsLeaf.append(true)
    sentinels.append(n)
    return s
  }

  /// The node of a position id in a sequence (nil id = the sequence's sentinel); nil when the
  /// position is unknown or belongs to another sequence.
  func node(_ id: PositionID?, in sequence: Int32) -> Int32? {
    guard let id else { return sentinels[Int(sequence)] }
    guard let n = lookup(id), nodes[Int(n)].sequence == sequence else { return nil }
    return n
  }

  @inline(__always)
  func isSentinel(_ n: Int32) -> Bool { nodes[Int(n)].parent < 0 }

  /// The Fugue anchor of a new position placed directly after node `a` in the full order: the
  /// right child of `a` when `a` has none, else the (only) left child of `a`'s successor.
  /// - Complexity: O(log n).
  func anchor(after a: Int32) -> Anchor {
    let (p, side) = attachment(after: a)
    return Anchor(parent: isSentinel(p) ? nil : nodes[Int(p)].id, side: side)
  }

  /// The Fugue parent node and side for a new position directly after node `a` (see
  /// ``anchor(after:)``).
  @inline(__always)
  func attachment(after a: Int32) -> (parent: Int32, side: Side) {
    if nodes[Int(a)].firstRight < 0 { return (a, .right) }
    let s = successor(a)!
    assert(nodes[Int(s)].firstLeft < 0, "the successor of a node with right children has no left child")
    return (s, .left)
  }

  /// Creates the position `id` as a Fugue child of `parent` and places it in the full order
  /// (invisible). Siblings are ordered by ascending id; a node's subtree is
  /// `left children's subtrees, node, right children's subtrees`.
  /// - Complexity: O(log n) plus the number of same-side siblings and, on concurrent inserts at
  ///   one spot, the depth of the neighbouring sibling's subtree.
  mutating func integrate(id: PositionID, parent p: Int32, side: Side, owner: Int32) -> Int32 {
    integrateLocated(id: id, parent: p, side: side, owner: owner).node
  }

  /// ``integrate(id:parent:side:owner:)``, also returning the new node's slot in its leaf (so making
  /// it visible needs no search).
  @inline(__always)
  mutating func integrateLocated(id: PositionID, parent p: Int32, side: Side, owner: Int32) -> (
    node: Int32, slot: Int
  ) {
    let sequence = nodes[Int(p)].sequence
    let n = newNode(id: id, sequence: sequence, parent: p, side: side, owner: owner)
    indexInsertNew(n)
    var prev: Int32 = -1
    var cur = side == .left ? nodes[Int(p)].firstLeft : nodes[Int(p)].firstRight
    while cur >= 0 && nodes[Int(cur)].id < id {
      prev = cur
      cur = nodes[Int(cur)].next
    }
    nodes[Int(n)].next = cur
    if prev >= 0 {
      nodes[Int(prev)].next = n
    } else if side == .left {
      nodes[Int(p)].firstLeft = n
    } else {
      nodes[Int(p)].firstRight = n
    }
    let slot: Int
    if cur >= 0 {
      slot = orderInsert(n, before: leftmostDescendant(cur), owner: owner)
    } else if side == .right {
      slot = orderInsert(n, after: prev >= 0 ? rightmostDescendant(prev) : p, owner: owner)
    } else {
      slot = orderInsert(n, before: p, owner: owner)
    }
    return (n, slot)
  }

  /// First node of `x`'s Fugue subtree in the full order.
  func leftmostDescendant(_ x: Int32) -> Int32 {
    var x = x
    while nodes[Int(x)].firstLeft >= 0 { x = nodes[Int(x)].firstLeft }
    return x
  }

  /// Last node of `x`'s Fugue subtree in the full order.
  func rightmostDescendant(_ x: Int32) -> Int32 {
    var x = x
    while true {
      var c = nodes[Int(x)].firstRight
      if c < 0 { return x }
      while nodes[Int(c)].next >= 0 { c = nodes[Int(c)].next }
      x = c
    }
  }

  /// Calls `body` with every node of `root`'s Fugue subtree in Fugue order: left children (by
  /// ascending id) with their subtrees, the node, right children with their subtrees. Iterative and
  /// allocation-free apart from one stack; stops early after `limit` nodes (a guard against cycles
  /// in corrupt input).
  func forEachInFugueOrder(from root: Int32, limit: Int = Int.max, _ body: (Int32) -> Void) {
    // Frames: 0 = visit node, 1 = emit node then its right children, 2 = visit a sibling chain.
    var stack: [(Int32, UInt8)] = [(root, 0)]
    var emitted = 0
    while let (x, kind) = stack.popLast() {
      switch kind {
      case 0:
        stack.append((x, 1))
        let c = nodes[Int(x)].firstLeft
        if c >= 0 { stack.append((c, 2)) }
      case 1:
        body(x)
        emitted += 1
        if emitted >= limit { return }
        let c = nodes[Int(x)].firstRight
        if c >= 0 { stack.append((c, 2)) }
      default:
        let next = nodes[Int(x)].next
        if next >= 0 { stack.append((next, 2)) }
        stack.append((x, 0))
      }
    }
  }
}
