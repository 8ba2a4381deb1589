/// Intents: validate, make this replica's op, apply it locally, return it (to be sent to the other
/// replicas). On error nothing changes.
///
/// Anchors are items (their current positions, even when deleted) in the destination list.
/// Rule when `after` and `before` no longer adjoin: **`after` wins** — the new position goes
/// directly after `after`'s position in the full order; `before` is used only when `after` is nil
/// (directly before `before`'s position); with neither, the item goes to the end of the list.
///
/// Generated ids (items, lists, assignments) are the op id as `"<counter>@<replica>"`.
extension Board {
  /// Moves this replica's clock on to at least `counter`: the clock of a copy of this board that
  /// made ops, so that the ops made here next never take their ids before those are applied here.
  public mutating func advanceClock(to counter: UInt64) {
    if counter > lamport { lamport = counter }
  }

  /// Makes the id of this replica's next op.
  mutating func nextOpID() -> OpID {
    lamport += 1
    return OpID(replica: replica, counter: lamport)
  }

  /// Applies an op made here (its dependencies are present by validation).
  mutating func applyLocal(_ op: Op) -> Op {
    let ok = integrate(op)
    precondition(ok, "a validated local op must integrate")
    releasePending(after: op)
    return op
  }

  /// The node after which a new position goes in list `l` (see the anchor rule above).
  @inline(__always)
  func anchorNode(in l: Int32, after: ItemID?, before: ItemID?) throws(BoardError) -> Int32 {
    if let after {
      guard let i = itemNumber(after) else { throw .unknownItem(after) }
      guard itemTable[Int(i)].list == l else { throw .invalidAnchor("'after' item is in another list") }
      return itemTable[Int(i)].place
    }
    if let before {
      guard let i = itemNumber(before) else { throw .unknownItem(before) }
      guard itemTable[Int(i)].list == l else { throw .invalidAnchor("'before' item is in another list") }
      return positions.predecessor(itemTable[Int(i)].place)!
    }
    return positions.last((l + 1))
  }

  @inline(__always)
  func liveList(_ list: ListID) throws(BoardError) -> Int32 {
    guard let l = listNumber(list), listTable[Int(l)].alive else { throw .unknownList(list) }
    return l
  }

  @inline(__always)
  func knownItem(_ item: ItemID) throws(BoardError) -> Int32 {
    guard let i = itemNumber(item) else { throw .unknownItem(item) }
    return i
  }

  static func validateID(_ text: String) throws(BoardError) {
    guard !text.isEmpty, text.utf8.count <= BoardLimits.maxIDBytes else {
      throw .invalidID("ids must be 1 to \(BoardLimits.maxIDBytes) bytes")
    }
  }

  static func validateField(_ name: String, _ value: FieldValue) throws(BoardError) {
    guard !name.isEmpty, name.utf8.count <= BoardLimits.maxFieldNameBytes else {
      throw .invalidField("names must be 1 to \(BoardLimits.maxFieldNameBytes) bytes")
    }
    switch value {
    case .number(let d) where !(abs(d) <= Totals.maxSummand):
      throw .invalidField("'\(name)' must be a number within ±1e15")
    case .string(let s) where s.utf8.count > BoardLimits.maxStringBytes:
      throw .invalidField("'\(name)' is longer than \(BoardLimits.maxStringBytes) bytes")
    default: break
    }
  }

  /// Inserts a new item into `list` (see the anchor rule), alive, with `fields`.
  /// `item` nil generates `"<counter>@<replica>"`.
  /// - Complexity: O(log n + f log f) for n positions in the list and f fields.
  public mutating func insert(
    list: ListID, after: ItemID?, before: ItemID?, fields: [String: FieldValue], item: ItemID? = nil
  ) throws(BoardError) -> Op {
    applyLocal(try makeInsert(list: list, after: after, before: before, fields: fields, item: item))
  }

  /// Moves an item (alive or deleted) into `list` (see the anchor rule). A deleted item stays
  /// deleted; a later restore shows it at this place.
  /// - Complexity: O(log n).
  public mutating func move(_ item: ItemID, to list: ListID, after: ItemID?, before: ItemID?) throws(BoardError) -> Op {
    applyLocal(try makeMove(item, to: list, after: after, before: before))
  }

  /// Deletes an item (its place is kept for a later restore).
  /// - Complexity: O(log n).
  public mutating func delete(_ item: ItemID) throws(BoardError) -> Op { applyLocal(try makeDelete(item)) }

  /// Restores a deleted item at its latest place.
  /// - Complexity: O(log n).
  public mutating func restore(_ item: ItemID) throws(BoardError) -> Op { applyLocal(try makeRestore(item)) }

  /// Sets one field of an item.
  /// - Complexity: O(f) for f fields of the item.
  public mutating func set(_ item: ItemID, field: String, value: FieldValue) throws(BoardError) -> Op {
    applyLocal(try makeSet(item, field: field, value: value))
  }

  /// Assigns `item` onto `target` (e.g. a food onto a person). Each call is a new assignment, so
  /// the same pair may be assigned more than once. `assignment` nil generates an id.
  /// - Complexity: O(1) amortized.
  public mutating func assign(_ item: ItemID, to target: ItemID, assignment: AssignmentID? = nil) throws(BoardError)
    -> Op
  {
    applyLocal(try makeAssign(item, to: target, assignment: assignment))
  }

  /// Removes one assignment. Add-wins: a concurrent assign of the same pair is another assignment
  /// and survives.
  /// - Complexity: O(1).
  public mutating func unassign(_ assignment: AssignmentID) throws(BoardError) -> Op {
    applyLocal(try makeUnassign(assignment))
  }

  /// Creates a list directly after the list `after` (nil: first). `list` nil generates an id.
  /// - Complexity: O(log L) for L list positions.
  public mutating func createList(_ list: ListID?, title: String, layout: Layout, after: ListID?) throws(BoardError)
    -> Op
  {
    applyLocal(try makeCreateList(list, title: title, layout: layout, after: after))
  }

  /// Moves a list directly after the list `after` (nil: first).
  /// - Complexity: O(log L).
  public mutating func moveList(_ list: ListID, after: ListID?) throws(BoardError) -> Op {
    applyLocal(try makeMoveList(list, after: after))
  }

  /// Deletes a list (its items stay, hidden with it).
  /// - Complexity: O(log L).
  public mutating func deleteList(_ list: ListID) throws(BoardError) -> Op { applyLocal(try makeDeleteList(list)) }

  func listAnchorNode(after: ListID?) throws(BoardError) -> Int32 {
    guard let after else { return positions.sentinels[0] }
    guard let l = listNumber(after) else { throw .unknownList(after) }
    return listTable[Int(l)].place
  }
}
