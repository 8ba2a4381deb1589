import ReorderCRDT

extension CRDTRoomBoard {
  public mutating func perform(_ intent: Intent, ids: GeneratedIDs) throws(ProtocolError) -> (
    logged: [UInt8], resolved: JSONValue
  ) {
    do {
      return try performChecked(intent, ids: ids)
    } catch let error as ProtocolError {
      throw error
    } catch let error as BoardError {
      throw CRDTRoomBoard.protocolError(error)
    } catch {
      throw ProtocolError(.invalidValue, "the op could not be applied")
    }
  }

  func liveIndex(_ item: String) throws(ProtocolError) -> (list: ListID, index: Int) {
    guard let at = board.index(of: ItemID(item)) else { throw ProtocolError(.unknownItem, "no live item with this id") }
    return at
  }

  /// The anchor used (`after`, else `before`) must be an item of the target list (deleted ones are
  /// fine) other than the moved item; the other one is ignored, as in the CRDT ("after wins").
  func checkAnchors(list: String, after: String?, before: String?, moving: String?) throws(ProtocolError) {
    guard board.isLive(ListID(list)) else { throw ProtocolError(.unknownList, "no list with this id") }
    for (name, anchor) in [("after", after), ("before", after == nil ? before : nil)] {
      guard let anchor else { continue }
      guard anchor != moving else { throw ProtocolError(.invalidAnchor, "an item cannot move next to itself") }
      guard let info = board.item(ItemID(anchor)), info.list == ListID(list) else {
        throw ProtocolError(.invalidAnchor, "'\(name)' is not an item of the target list")
      }
    }
  }

  /// Visible place of a live item: its index and the item before it.
  func place(of item: ItemID) -> (list: ListID, index: Int, after: JSONValue) {
    guard let at = board.index(of: item) else { return (ListID(""), 0, .null) }
    let after = at.index > 0 ? board.item(at: at.index - 1, in: at.list).map { JSONValue.string($0.rawValue) } : nil
    return (at.list, at.index, after ?? .null)
  }

  func listPlace(of list: ListID) -> (index: Int, after: JSONValue) {
    let index = board.index(ofList: list) ?? 0
    let lists = board.lists
    return (index, index > 0 && index - 1 < lists.count ? .string(lists[index - 1].id.rawValue) : .null)
  }

  func fieldsJSON(of item: ItemID) -> JSONValue { CRDTRoomBoard.fieldsJSON(board.item(item)?.fields ?? [:]) }

  mutating func performChecked(_ intent: Intent, ids: GeneratedIDs) throws -> (logged: [UInt8], resolved: JSONValue) {
    let op: Op
    let resolved: JSONValue
    switch intent {
    case .insert(let list, let after, let before, let fields, let item):
      try checkAnchors(list: list, after: after, before: before, moving: nil)
      var crdtFields: [String: FieldValue] = [:]
      for (k, v) in fields { crdtFields[k] = CRDTRoomBoard.fieldValue(v) }
      let id = ItemID(item ?? ids.item)
      op = try board.insert(
        list: ListID(list), after: after.map { ItemID($0) }, before: before.map { ItemID($0) }, fields: crdtFields,
        item: id)
      itemCount += 1
      let p = place(of: id)
      resolved = .object([
        ("kind", .string("insert")), ("item", .string(id.rawValue)), ("list", .string(list)), ("index", .int(p.index)),
        ("after", p.after), ("fields", fieldsJSON(of: id)),
      ])
    case .move(let item, let list, let after, let before):
      let from = try liveIndex(item)
      try checkAnchors(list: list, after: after, before: before, moving: item)
      op = try board.move(
        ItemID(item), to: ListID(list), after: after.map { ItemID($0) }, before: before.map { ItemID($0) })
      let p = place(of: ItemID(item))
      resolved = .object([
        ("kind", .string("move")), ("item", .string(item)), ("list", .string(list)), ("index", .int(p.index)),
        ("after", p.after), ("from", .object([("list", .string(from.list.rawValue)), ("index", .int(from.index))])),
      ])
    case .delete(let item):
      let at = try liveIndex(item)
      let hidden = board.assignments.filter { $0.item.rawValue == item || $0.target.rawValue == item }
      op = try board.delete(ItemID(item))
      var members: [(key: String, value: JSONValue)] = [
        ("kind", .string("delete")), ("item", .string(item)), ("list", .string(at.list.rawValue)),
      ]
      let board = self
      members += AssignmentChanges.members(
        key: "unassigned", ids: hidden.map(\.id.rawValue), assignments: [], targets: hidden.map(\.target.rawValue),
        totals: { board.totalsJSON(ItemID($0)) })
      resolved = .object(members)
    case .restore(let item):
      guard let info = board.item(ItemID(item)) else { throw ProtocolError(.unknownItem, "no item with this id") }
      guard board.isLive(info.list) else { throw ProtocolError(.unknownItem, "the item's list was deleted") }
      guard !info.alive else { throw ProtocolError(.invalidField, "the item is not deleted") }
      op = try board.restore(ItemID(item))
      let p = place(of: ItemID(item))
      var members: [(key: String, value: JSONValue)] = [
        ("kind", .string("restore")), ("item", .string(item)), ("list", .string(p.list.rawValue)),
        ("index", .int(p.index)), ("after", p.after), ("fields", fieldsJSON(of: ItemID(item))),
      ]
      let shown = board.assignments.filter { $0.item.rawValue == item || $0.target.rawValue == item }
      let board = self
      members += AssignmentChanges.members(
        key: "assigned", ids: [], assignments: shown.map { ($0.id.rawValue, $0.item.rawValue, $0.target.rawValue) },
        targets: shown.map(\.target.rawValue), totals: { board.totalsJSON(ItemID($0)) })
      resolved = .object(members)
    case .set(let item, let field, let value):
      guard let info = board.item(ItemID(item)) else { throw ProtocolError(.unknownItem, "no item with this id") }
      guard board.isLive(info.list) else { throw ProtocolError(.unknownItem, "the item's list was deleted") }
      op = try board.set(ItemID(item), field: field, value: CRDTRoomBoard.fieldValue(value))
      resolved = .object([
        ("kind", .string("set")), ("item", .string(item)), ("field", .string(field)), ("value", value.json),
      ])
    case .assign(let item, let target):
      _ = try liveIndex(item)
      guard board.index(of: ItemID(target)) != nil else {
        throw ProtocolError(.unknownItem, "no live target item with this id")
      }
      guard item != target else { throw ProtocolError(.invalidField, "an item cannot be assigned to itself") }
      op = try board.assign(ItemID(item), to: ItemID(target), assignment: AssignmentID(ids.assignment))
      resolved = .object([
        ("kind", .string("assign")), ("assignment", .string(ids.assignment)), ("item", .string(item)),
        ("target", .string(target)), ("totals", totalsJSON(ItemID(target))),
      ])
    case .unassign(let assignment):
      guard let a = board.assignment(AssignmentID(assignment)) else {
        throw ProtocolError(.unknownAssignment, "no assignment with this id")
      }
      op = try board.unassign(AssignmentID(assignment))
      resolved = .object([
        ("kind", .string("unassign")), ("assignment", .string(assignment)), ("item", .string(a.item.rawValue)),
        ("target", .string(a.target.rawValue)), ("totals", totalsJSON(a.target)),
      ])
    case .createList(let list, let title, let layout, let after):
      if let after, !board.isLive(ListID(after)) {
        throw ProtocolError(.invalidAnchor, "'after' is not a list of the board")
      }
      let id = ListID(list ?? ids.list)
      op = try board.createList(
        id, title: title, layout: Layout(rawValue: layout) ?? .list, after: after.map { ListID($0) })
      let p = listPlace(of: id)
      resolved = .object([
        ("kind", .string("createList")), ("list", .string(id.rawValue)), ("title", .string(title)),
        ("layout", .string(layout)), ("index", .int(p.index)), ("after", p.after),
      ])
    case .moveList(let list, let after):
      guard board.isLive(ListID(list)) else { throw ProtocolError(.unknownList, "no list with this id") }
      guard after != list else { throw ProtocolError(.invalidAnchor, "a list cannot move next to itself") }
      if let after, !board.isLive(ListID(after)) {
        throw ProtocolError(.invalidAnchor, "'after' is not a list of the board")
      }
      op = try board.moveList(ListID(list), after: after.map { ListID($0) })
      let p = listPlace(of: ListID(list))
      resolved = .object([
        ("kind", .string("moveList")), ("list", .string(list)), ("index", .int(p.index)), ("after", p.after),
      ])
    case .deleteList(let list):
      guard board.isLive(ListID(list)) else { throw ProtocolError(.unknownList, "no list with this id") }
      // Its items stop being live, and so do the assignments of (and onto) them.
      let hidden = board.assignments.filter {
        board.item($0.item)?.list.rawValue == list || board.item($0.target)?.list.rawValue == list
      }
      op = try board.deleteList(ListID(list))
      var members: [(key: String, value: JSONValue)] = [("kind", .string("deleteList")), ("list", .string(list))]
      let after = self
      members += AssignmentChanges.members(
        key: "unassigned", ids: hidden.map(\.id.rawValue), assignments: [], targets: hidden.map(\.target.rawValue),
        totals: { after.totalsJSON(ItemID($0)) })
      resolved = .object(members)
    }
    return (op.encoded(), resolved)
  }
}
