import ReorderCRDT

extension CRDTRoomBoard: LoggedBoard {
  public var clock: UInt64 { board.lamport }
  public mutating func advanceClock(to counter: UInt64) { board.advanceClock(to: counter) }

  /// The same checks as `perform` (the server's, stricter than the CRDT's), then the CRDT's
  /// `make…`: the op is made on this replica's state and not applied.
  public mutating func make(_ intent: Intent, ids: GeneratedIDs) throws(ProtocolError) -> [UInt8] {
    do {
      let op = try makeChecked(intent, ids: ids)
      let bytes = op.encoded()
      lastMade = (bytes, op)
      return bytes
    } catch let error as ProtocolError {
      throw error
    } catch let error as BoardError {
      throw CRDTRoomBoard.protocolError(error)
    } catch {
      throw ProtocolError(.invalidValue, "the op could not be made")
    }
  }

  mutating func makeChecked(_ intent: Intent, ids: GeneratedIDs) throws -> Op {
    switch intent {
    case .insert(let list, let after, let before, let fields, let item):
      try checkAnchors(list: list, after: after, before: before, moving: nil)
      var crdtFields: [String: FieldValue] = [:]
      for (k, v) in fields { crdtFields[k] = CRDTRoomBoard.fieldValue(v) }
      return try board.makeInsert(
        list: ListID(list), after: after.map { ItemID($0) }, before: before.map { ItemID($0) }, fields: crdtFields,
        item: ItemID(item ?? ids.item))
    case .move(let item, let list, let after, let before):
      _ = try liveIndex(item)
      try checkAnchors(list: list, after: after, before: before, moving: item)
      return try board.makeMove(
        ItemID(item), to: ListID(list), after: after.map { ItemID($0) }, before: before.map { ItemID($0) })
    case .delete(let item):
      _ = try liveIndex(item)
      return try board.makeDelete(ItemID(item))
    case .restore(let item):
      guard let info = board.item(ItemID(item)) else { throw ProtocolError(.unknownItem, "no item with this id") }
      guard board.isLive(info.list) else { throw ProtocolError(.unknownItem, "the item's list was deleted") }
      guard !info.alive else { throw ProtocolError(.invalidField, "the item is not deleted") }
      return try board.makeRestore(ItemID(item))
    case .set(let item, let field, let value):
      guard let info = board.item(ItemID(item)) else { throw ProtocolError(.unknownItem, "no item with this id") }
      guard board.isLive(info.list) else { throw ProtocolError(.unknownItem, "the item's list was deleted") }
      return try board.makeSet(ItemID(item), field: field, value: CRDTRoomBoard.fieldValue(value))
    case .assign(let item, let target):
      _ = try liveIndex(item)
      guard board.index(of: ItemID(target)) != nil else {
        throw ProtocolError(.unknownItem, "no live target item with this id")
      }
      guard item != target else { throw ProtocolError(.invalidField, "an item cannot be assigned to itself") }
      return try board.makeAssign(ItemID(item), to: ItemID(target), assignment: AssignmentID(ids.assignment))
    case .unassign(let assignment):
      guard board.assignment(AssignmentID(assignment)) != nil else {
        throw ProtocolError(.unknownAssignment, "no assignment with this id")
      }
      return try board.makeUnassign(AssignmentID(assignment))
    case .createList(let list, let title, let layout, let after):
      if let after, !board.isLive(ListID(after)) {
        throw ProtocolError(.invalidAnchor, "'after' is not a list of the board")
      }
      return try board.makeCreateList(
        ListID(list ?? ids.list), title: title, layout: Layout(rawValue: layout) ?? .list,
        after: after.map { ListID($0) })
    case .moveList(let list, let after):
      guard board.isLive(ListID(list)) else { throw ProtocolError(.unknownList, "no list with this id") }
      guard after != list else { throw ProtocolError(.invalidAnchor, "a list cannot move next to itself") }
      if let after, !board.isLive(ListID(after)) {
        throw ProtocolError(.invalidAnchor, "'after' is not a list of the board")
      }
      return try board.makeMoveList(ListID(list), after: after.map { ListID($0) })
    case .deleteList(let list):
      guard board.isLive(ListID(list)) else { throw ProtocolError(.unknownList, "no list with this id") }
      return try board.makeDeleteList(ListID(list))
    }
  }
}
