/// Checking the invariants listed on ``Board`` (tests call this after every step).
extension Board {
  /// Verifies every invariant of the state; stops the program with a message naming the broken
  /// one. Meant for tests and debugging.
  /// - Complexity: O(n log n) over all positions, items, lists and assignments.
  public func checkInvariants() {
    let nodes = positions.nodes
    precondition(positions.roots.count == listTable.count + 1, "one item sequence per list, plus the list sequence")
    // 1 + 2. Order trees, and their order equals the Fugue order.
    var seen = 0
    for s in 0..<Int32(positions.sequenceCount) {
      seen += positions.checkOrderTree(s)
      let order = positions.fullOrder(s)
      precondition(order.first == positions.sentinels[Int(s)], "the sentinel is first")
      precondition(order == fugueOrder(from: positions.sentinels[Int(s)]), "order tree equals Fugue order")
    }
    precondition(seen == nodes.count, "every node is in an order tree")
    // Fugue links and index.
    precondition(positions.indexCount == nodes.count - positions.sequenceCount, "index covers every position")
    for n in positions.indexedNodes {
      precondition(positions.lookup(nodes[Int(n)].id) == n && nodes[Int(n)].parent >= 0, "index agrees")
    }
    for (k, node) in nodes.enumerated() {
      for first in [node.firstLeft, node.firstRight] {
        var c = first
        var previous: PositionID? = nil
        while c >= 0 {
          precondition(nodes[Int(c)].parent == Int32(k), "Fugue child points to its parent")
          precondition(nodes[Int(c)].side == (first == node.firstLeft ? .left : .right), "Fugue side agrees")
          if let previous { precondition(previous < nodes[Int(c)].id, "Fugue siblings ascend by id") }
          previous = nodes[Int(c)].id
          c = nodes[Int(c)].next
        }
      }
    }
    // 3 + 4. Visibility is exactly the places of live items and lists.
    var visibleExpected = Set<Int32>()
    for (l, list) in listTable.enumerated() {
      precondition(listIndex[list.id] == Int32(l), "list index agrees")
      precondition(nodes[Int(list.place)].sequence == 0 && nodes[Int(list.place)].id == list.placeStamp, "list place")
      precondition(list.sequence == Int32(l + 1), "list sequence")
      if list.alive {
        precondition(nodes[Int(list.place)].owner == Int32(l), "visible list node owner")
        visibleExpected.insert(list.place)
      }
    }
    for (i, item) in itemTable.enumerated() {
      precondition(itemNumber(itemIDs[i]) == Int32(i), "item index agrees")
      let fields = itemFields[i]
      let place = nodes[Int(item.place)]
      precondition(place.sequence == listTable[Int(item.list)].sequence, "item place is in its list")
      precondition(place.id == item.placeStamp, "item place has the stamp's id")
      precondition(fields.map(\.name) == fields.map(\.name).sorted(), "fields sorted")
      precondition(Set(fields.map(\.name)).count == fields.count, "fields unique")
      if item.alive {
        precondition(place.owner == Int32(i), "visible item node owner")
        precondition(visibleExpected.insert(item.place).inserted, "a live item appears exactly once")
      }
    }
    for k in nodes.indices {
      precondition(
        positions.isVisible(Int32(k)) == visibleExpected.contains(Int32(k)),
        "visible iff the place of a live item or list")
    }
    precondition(
      listIDs == listTable.map(\.id) && itemIDs.count == itemTable.count && itemFields.count == itemTable.count
        && itemIndex.count == itemTable.count,
      "id arrays agree")
    // Assignments.
    for (k, a) in assignmentTable.enumerated() {
      precondition(assignmentIndex[a.id] == Int32(k), "assignment index agrees")
      precondition(assignmentsByTarget[a.target]?.filter { $0 == Int32(k) }.count == 1, "assignment by target")
    }
    precondition(assignmentsByTarget.values.reduce(0) { $0 + $1.count } == assignmentTable.count, "by-target total")
    // 5 + 6. Buffer and clock.
    let buffered = pending.values.flatMap { $0 }
    precondition(buffered.count == pendingIDs.count && Set(buffered.map(\.id)) == pendingIDs, "buffer ids agree")
    for (dependency, ops) in pending {
      for op in ops {
        precondition(!isApplied(op), "a buffered op is not applied")
        precondition(missingDependency(op) == dependency, "a buffered op waits for its first missing dependency")
      }
    }
    for node in nodes where node.parent >= 0 { precondition(node.id.counter <= lamport, "clock covers positions") }
    for id in seenOps { precondition(id.counter <= lamport, "clock covers ops") }
  }

  /// The Fugue traversal from a node: left children (ascending), node, right children (ascending).
  func fugueOrder(from root: Int32) -> [Int32] {
    var out: [Int32] = []
    positions.forEachInFugueOrder(from: root, limit: positions.nodes.count) { out.append($0) }
    return out
  }
}
