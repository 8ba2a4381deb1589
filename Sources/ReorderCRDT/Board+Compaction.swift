/// Compaction: dropping what only the history of a board needs, so that its size is set by its
/// content rather than by the number of ops it has seen.
///
/// Kept: every position that is the place of an item or a list (deleted ones included, since a
/// restore brings an item back at its place and a deleted item can still anchor), each with its
/// id; positions a buffered op hangs from; every item, list, field and assignment register; the
/// causal buffer; the Lamport clock. Dropped: the other positions (the tombstones that moves leave
/// behind) and the ids of applied ops that create no position. The kept positions keep their full
/// order: each hangs as the right child of the kept position before it, so the visible order and
/// every index are unchanged. Lists, items and assignments are renumbered in id order, so two
/// replicas that compact the same state get the same bytes whatever order its ops arrived in.
///
/// **Valid only under causal stability** (docs/CRDT.md, "Compaction"): every op applied after it
/// must have been made by a replica that had applied every op up to the compaction (in practice:
/// one that compacted the same state). An older op may name a dropped position as its parent or
/// be applied a second time (its id is forgotten); a newer op made on an uncompacted replica may
/// land elsewhere, since the Fugue tree it was placed in is not this one. The result is a pure
/// function of the state, so replicas that compact the same state stay identical under the same
/// later ops.
extension Board {
  /// Drops the positions no item or list refers to and the ids of applied ops, keeping every
  /// visible result (lists, order, items, fields, assignments, totals).
  /// - Complexity: O(n) for n positions, items, assignments and remembered ops.
  public mutating func compact() { _ = compactedSnapshot() }

  /// Compacts the board (see ``compact()``) and returns its snapshot, the same bytes as
  /// ``encodedSnapshot()`` of the compacted board.
  /// - Complexity: O(n) for n positions, items, assignments and remembered ops.
  public mutating func compactedSnapshot() -> [UInt8] {
    let bytes = encodeSnapshot(keeping: referencedPositions())
    do {
      self = try Board(snapshot: bytes, replica: replica)
    } catch {
      preconditionFailure("a compacted snapshot does not load: \(error)")
    }
    return bytes
  }

  /// By node: whether something refers to the position (a sentinel, the place of an item or a
  /// list, or the parent of a buffered op).
  func referencedPositions() -> [Bool] {
    var kept = [Bool](repeating: false, count: positions.nodes.count)
    for s in positions.sentinels { kept[Int(s)] = true }
    for list in listTable { kept[Int(list.place)] = true }
    for item in itemTable { kept[Int(item.place)] = true }
    for ops in pending.values {
      for op in ops {
        let anchor: Anchor
        switch op.action {
        case .insert(_, _, let a, _), .move(_, _, let a), .createList(_, _, _, let a), .moveList(_, let a): anchor = a
        default: continue
        }
        if let parent = anchor.parent, let n = positions.lookup(parent) { kept[Int(n)] = true }
      }
    }
    return kept
  }

  /// The number of positions the board holds (tombstones included, sentinels not): what
  /// ``compact()`` reduces to the places of items and lists.
  public var positionCount: Int { positions.indexCount }
}
