/// Making ops without applying them: what a replica needs when the order of ops is decided
/// elsewhere (cluster mode: a shared log assigns each op its place, and every replica applies the
/// ops in that order, its own included).
///
/// Each `makeX` validates against this replica's state exactly as the intent `X` does (see
/// `Board+Intents.swift`, which is `makeX` followed by applying the op), takes a fresh op id (the
/// Lamport clock moves on, so two ops made here never share an id even when neither is applied
/// yet), and returns the op. Nothing else changes: the op is applied later with `apply(_:)`.
/// An op made on a replica depends only on ops that replica has applied, so applying ops in any
/// order that puts each after the ones it was made on needs no buffering.
///
/// Generated ids (items, lists, assignments) are the op id as `"<counter>@<replica>"`, skipping
/// ids already taken on this replica.
extension Board {
  /// The op, not applied, that inserts a new item into `list` (see the anchor rule), alive, with `fields`. `item` nil
  /// generates `"<counter>@<replica>"`.
  /// - Complexity: O(log n + f log f) for n positions in the list and f fields.
  public mutating func makeInsert(
    list: ListID, after: ItemID?, before: ItemID?, fields: [String: FieldValue], item: ItemID? = nil
  ) throws(BoardError) -> Op {
    let l = try liveList(list)
    guard fields.count <= BoardLimits.maxFields else { throw .invalidField("at most \(BoardLimits.maxFields) fields") }
    for (name, value) in fields { try Board.validateField(name, value) }
    if let item {
      try Board.validateID(item.rawValue)
      guard itemNumber(item) == nil else { throw .duplicateItem(item) }
    }
    let anchor = positions.anchor(after: try anchorNode(in: l, after: after, before: before))
    var id = nextOpID()
    var itemID = item ?? ItemID(GeneratedID.text(id))
    while item == nil && itemNumber(itemID) != nil {
      id = nextOpID()
      itemID = ItemID(GeneratedID.text(id))
    }
    return Op(id: id, action: .insert(item: itemID, list: list, anchor: anchor, fields: fields))
  }

  /// The op, not applied, that moves an item (alive or deleted) into `list` (see the anchor rule). A deleted item
  /// stays deleted; a later restore shows it at this place.
  /// - Complexity: O(log n).
  public mutating func makeMove(_ item: ItemID, to list: ListID, after: ItemID?, before: ItemID?) throws(BoardError)
    -> Op
  {
    _ = try knownItem(item)
    let l = try liveList(list)
    let (p, side) = positions.attachment(after: try anchorNode(in: l, after: after, before: before))
    let anchor = Anchor(parent: positions.isSentinel(p) ? nil : positions.nodes[Int(p)].id, side: side)
    return Op(id: nextOpID(), action: .move(item: item, list: list, anchor: anchor))
  }

  /// The op, not applied, that deletes an item (its place is kept for a later restore).
  /// - Complexity: O(log n).
  public mutating func makeDelete(_ item: ItemID) throws(BoardError) -> Op {
    _ = try knownItem(item)
    return Op(id: nextOpID(), action: .delete(item: item))
  }

  /// The op, not applied, that restores a deleted item at its latest place.
  /// - Complexity: O(log n).
  public mutating func makeRestore(_ item: ItemID) throws(BoardError) -> Op {
    _ = try knownItem(item)
    return Op(id: nextOpID(), action: .restore(item: item))
  }

  /// The op, not applied, that sets one field of an item.
  /// - Complexity: O(f) for f fields of the item.
  public mutating func makeSet(_ item: ItemID, field: String, value: FieldValue) throws(BoardError) -> Op {
    _ = try knownItem(item)
    try Board.validateField(field, value)
    return Op(id: nextOpID(), action: .set(item: item, field: field, value: value))
  }

  /// The op, not applied, that assigns `item` onto `target` (e.g. a food onto a person). Each call is a new
  /// assignment, so the same pair may be assigned more than once. `assignment` nil generates an id.
  /// - Complexity: O(1) amortized.
  public mutating func makeAssign(_ item: ItemID, to target: ItemID, assignment: AssignmentID? = nil) throws(BoardError)
    -> Op
  {
    _ = try knownItem(item)
    _ = try knownItem(target)
    if let assignment {
      try Board.validateID(assignment.rawValue)
      guard assignmentIndex[assignment] == nil else { throw .duplicateAssignment(assignment) }
    }
    var id = nextOpID()
    var assignmentID = assignment ?? AssignmentID(GeneratedID.text(id))
    while assignment == nil && assignmentIndex[assignmentID] != nil {
      id = nextOpID()
      assignmentID = AssignmentID(GeneratedID.text(id))
    }
    return Op(id: id, action: .assign(assignment: assignmentID, item: item, target: target))
  }

  /// The op, not applied, that removes one assignment. Add-wins: a concurrent assign of the same pair is another
  /// assignment and survives.
  /// - Complexity: O(1).
  public mutating func makeUnassign(_ assignment: AssignmentID) throws(BoardError) -> Op {
    guard let a = assignmentIndex[assignment], !assignmentTable[Int(a)].removed else {
      throw .unknownAssignment(assignment)
    }
    return Op(id: nextOpID(), action: .unassign(assignment: assignment))
  }

  /// The op, not applied, that creates a list directly after the list `after` (nil: first). `list` nil generates an
  /// id.
  /// - Complexity: O(log L) for L list positions.
  public mutating func makeCreateList(_ list: ListID?, title: String, layout: Layout, after: ListID?) throws(BoardError)
    -> Op
  {
    if let list {
      try Board.validateID(list.rawValue)
      guard listIndex[list] == nil else { throw .duplicateList(list) }
    }
    guard title.utf8.count <= BoardLimits.maxStringBytes else {
      throw .invalidField("titles are at most \(BoardLimits.maxStringBytes) bytes")
    }
    let anchor = positions.anchor(after: try listAnchorNode(after: after))
    var id = nextOpID()
    var listID = list ?? ListID(GeneratedID.text(id))
    while list == nil && listNumber(listID) != nil {
      id = nextOpID()
      listID = ListID(GeneratedID.text(id))
    }
    return Op(id: id, action: .createList(list: listID, title: title, layout: layout, anchor: anchor))
  }

  /// The op, not applied, that moves a list directly after the list `after` (nil: first).
  /// - Complexity: O(log L).
  public mutating func makeMoveList(_ list: ListID, after: ListID?) throws(BoardError) -> Op {
    _ = try liveList(list)
    let anchor = positions.anchor(after: try listAnchorNode(after: after))
    return Op(id: nextOpID(), action: .moveList(list: list, anchor: anchor))
  }

  /// The op, not applied, that deletes a list (its items stay, hidden with it).
  /// - Complexity: O(log L).
  public mutating func makeDeleteList(_ list: ListID) throws(BoardError) -> Op {
    _ = try liveList(list)
    return Op(id: nextOpID(), action: .deleteList(list: list))
  }
}
