/// The treap over each sequence's full order (in-order = Fugue order), counting visible nodes.
extension PositionStore {
  func count(_ n: Int32) -> Int32 { n < 0 ? 0 : nodes[Int(n)].count }

  mutating func recount(_ n: Int32) {
    let node = nodes[Int(n)]
    nodes[Int(n)].count = count(node.left) + count(node.right) + (node.visible ? 1 : 0)
  }

  /// Inserts the fresh (invisible) node `n` directly after `a` in the full order.
  mutating func treapInsert(_ n: Int32, after a: Int32) {
    if nodes[Int(a)].right < 0 {
      nodes[Int(a)].right = n
      nodes[Int(n)].up = a
    } else {
      var y = nodes[Int(a)].right
      while nodes[Int(y)].left >= 0 { y = nodes[Int(y)].left }
      nodes[Int(y)].left = n
      nodes[Int(n)].up = y
    }
    bubbleUp(n)
  }

  /// Inserts the fresh (invisible) node `n` directly before `b` in the full order.
  mutating func treapInsert(_ n: Int32, before b: Int32) {
    if nodes[Int(b)].left < 0 {
      nodes[Int(b)].left = n
      nodes[Int(n)].up = b
    } else {
      var y = nodes[Int(b)].left
      while nodes[Int(y)].right >= 0 { y = nodes[Int(y)].right }
      nodes[Int(y)].right = n
      nodes[Int(n)].up = y
    }
    bubbleUp(n)
  }

  private mutating func bubbleUp(_ n: Int32) {
    while true {
      let p = nodes[Int(n)].up
      if p < 0 || nodes[Int(p)].priority >= nodes[Int(n)].priority { return }
      rotateUp(n)
    }
  }

  /// Rotates `x` above its parent, keeping the in-order sequence and the counts.
  private mutating func rotateUp(_ x: Int32) {
    let p = nodes[Int(x)].up
    let g = nodes[Int(p)].up
    if nodes[Int(p)].left == x {
      let b = nodes[Int(x)].right
      nodes[Int(p)].left = b
      if b >= 0 { nodes[Int(b)].up = p }
      nodes[Int(x)].right = p
    } else {
      let b = nodes[Int(x)].left
      nodes[Int(p)].right = b
      if b >= 0 { nodes[Int(b)].up = p }
      nodes[Int(x)].left = p
    }
    nodes[Int(p)].up = x
    nodes[Int(x)].up = g
    if g < 0 {
      roots[Int(nodes[Int(x)].sequence)] = x
    } else if nodes[Int(g)].left == p {
      nodes[Int(g)].left = x
    } else {
      nodes[Int(g)].right = x
    }
    recount(p)
    recount(x)
  }

  /// Marks a node visible or not, updating the counts up to the root.
  /// - Complexity: O(log n).
  mutating func setVisible(_ n: Int32, _ visible: Bool) {
    guard nodes[Int(n)].visible != visible else { return }
    nodes[Int(n)].visible = visible
    let delta: Int32 = visible ? 1 : -1
    var x = n
    while x >= 0 {
      nodes[Int(x)].count += delta
      x = nodes[Int(x)].up
    }
  }

  /// Number of visible nodes before `n` in its sequence (its visible index when visible).
  /// - Complexity: O(log n).
  func rank(_ n: Int32) -> Int {
    var r = count(nodes[Int(n)].left)
    var x = n
    var p = nodes[Int(x)].up
    while p >= 0 {
      let parent = nodes[Int(p)]
      if parent.right == x { r += count(parent.left) + (parent.visible ? 1 : 0) }
      x = p
      p = parent.up
    }
    return Int(r)
  }

  /// The visible node at visible index `k` of a sequence.
  /// - Complexity: O(log n).
  func select(_ sequence: Int32, _ k: Int) -> Int32? {
    var k = Int32(k)
    var x = roots[Int(sequence)]
    guard k >= 0, k < count(x) else { return nil }
    while x >= 0 {
      let node = nodes[Int(x)]
      let lc = count(node.left)
      if k < lc {
        x = node.left
      } else if k == lc && node.visible {
        return x
      } else {
        k -= lc + (node.visible ? 1 : 0)
        x = node.right
      }
    }
    return nil
  }

  /// Visible nodes in a sequence.
  func visibleCount(_ sequence: Int32) -> Int { Int(count(roots[Int(sequence)])) }

  /// The next node in the full order, or nil at the end.
  func successor(_ n: Int32) -> Int32? {
    var x = nodes[Int(n)].right
    if x >= 0 {
      while nodes[Int(x)].left >= 0 { x = nodes[Int(x)].left }
      return x
    }
    x = n
    var p = nodes[Int(x)].up
    while p >= 0 && nodes[Int(p)].right == x {
      x = p
      p = nodes[Int(p)].up
    }
    return p >= 0 ? p : nil
  }

  /// The previous node in the full order, or nil at the start (only the sentinel has none).
  func predecessor(_ n: Int32) -> Int32? {
    var x = nodes[Int(n)].left
    if x >= 0 {
      while nodes[Int(x)].right >= 0 { x = nodes[Int(x)].right }
      return x
    }
    x = n
    var p = nodes[Int(x)].up
    while p >= 0 && nodes[Int(p)].left == x {
      x = p
      p = nodes[Int(p)].up
    }
    return p >= 0 ? p : nil
  }

  /// The last node of a sequence's full order (the sentinel when empty).
  func last(_ sequence: Int32) -> Int32 {
    var x = roots[Int(sequence)]
    while nodes[Int(x)].right >= 0 { x = nodes[Int(x)].right }
    return x
  }

  /// Calls `body` with each visible node of a sequence in order, skipping invisible subtrees.
  /// - Complexity: O(v log n) for v visible nodes.
  func forEachVisible(_ sequence: Int32, _ body: (Int32) -> Void) {
    var stack: [Int32] = []
    var x = roots[Int(sequence)]
    while x >= 0 || !stack.isEmpty {
      while x >= 0 && nodes[Int(x)].count > 0 {
        stack.append(x)
        x = nodes[Int(x)].left
      }
      guard let top = stack.popLast() else { return }
      if nodes[Int(top)].visible { body(top) }
      x = nodes[Int(top)].right
    }
  }

  /// Every node of a sequence in full order (tests and snapshots).
  func fullOrder(_ sequence: Int32) -> [Int32] {
    var out: [Int32] = []
    var stack: [Int32] = []
    var x = roots[Int(sequence)]
    while x >= 0 || !stack.isEmpty {
      while x >= 0 {
        stack.append(x)
        x = nodes[Int(x)].left
      }
      let top = stack.removeLast()
      out.append(top)
      x = nodes[Int(top)].right
    }
    return out
  }
}
