import ReorderCRDT

/// Resolving an op applied from the shared log, in log order: what changed, as a client applies it.
///
/// An op made on one node may meet ops that reached the log first (a concurrent move that wins
/// the item's place register, a delete of the item or of its list). The resolved op therefore
/// says what the op did to this board, not what its maker intended, and it is the same on every
/// node (they apply the same ops in the same order). For an item op, by whether the item was
/// visible (alive, in a live list) before and after:
/// - visible before and after: `move` to where it is now (`from` where it was; a no-op for a
///   client when the op lost, or was a delete that lost to a restore);
/// - visible before only: `delete` (with the assignments that disappeared);
/// - visible after only: `insert` for an insert, else `restore` (with the assignments that came back);
/// - visible neither time: `delete` of the item (nothing for a client to do).
/// A `set` gives the field's value now (the winning write); an `assign` whose assignment is not
/// visible (an item of it is gone) is an `unassign`; list ops follow the item rules with
/// `moveList`, `deleteList` and `createList`.
extension CRDTRoomBoard {
  public mutating func applyLogged(_ logged: [UInt8]) throws -> JSONValue {
    let op: Op
    if let made = lastMade, made.bytes == logged { op = made.op } else { op = try Op(encoded: logged) }
    lastMade = nil
    switch op.action {
    case .insert(let item, _, _, _), .move(let item, _, _), .delete(let item), .restore(let item):
      return applyItemOp(op, item: item)
    case .set(let item, let field, _):
      board.apply(op)
      let value = board.item(item)?.fields[field].map(CRDTRoomBoard.fieldJSON) ?? .null
      return .object([
        ("kind", .string("set")), ("item", .string(item.rawValue)), ("field", .string(field)), ("value", value),
      ])
    case .assign(let assignment, let item, let target):
      board.apply(op)
      let visible = board.assignment(assignment) != nil
      return .object([
        ("kind", .string(visible ? "assign" : "unassign")), ("assignment", .string(assignment.rawValue)),
        ("item", .string(item.rawValue)), ("target", .string(target.rawValue)), ("totals", totalsJSON(target)),
      ])
    case .unassign(let assignment):
      let known = board.assignment(assignment)
      board.apply(op)
      var members: [(key: String, value: JSONValue)] = [
        ("kind", .string("unassign")), ("assignment", .string(assignment.rawValue)),
      ]
      if let known {
        members += [
          ("item", .string(known.item.rawValue)), ("target", .string(known.target.rawValue)),
          ("totals", totalsJSON(known.target)),
        ]
      }
      return .object(members)
    case .createList(let list, _, _, _), .moveList(let list, _), .deleteList(let list):
      return applyListOp(op, list: list)
    }
  }

  mutating func applyItemOp(_ op: Op, item: ItemID) -> JSONValue {
    let before = board.index(of: item).map { _ in place(of: item) }
    let isNew = board.item(item) == nil
    // Only these can show or hide assignments (a move: only into or out of a deleted list).
    let watches: Bool
    switch op.action {
    case .delete, .restore: watches = true
    case .move(_, let list, _): watches = before == nil || !board.isLive(list)
    default: watches = false
    }
    let assignmentsBefore = watches ? board.assignments : []
    board.apply(op)
    if isNew && board.item(item) != nil { itemCount += 1 }
    let id = item.rawValue
    guard board.index(of: item) != nil else {
      let list = before?.list ?? board.item(item)?.list ?? op.action.listOfItemOp
      var members: [(key: String, value: JSONValue)] = [
        ("kind", .string("delete")), ("item", .string(id)), ("list", .string(list.rawValue)),
      ]
      let after = Set(board.assignments.map(\.id))
      let hidden = assignmentsBefore.filter { !after.contains($0.id) }
      let board = self
      members += AssignmentChanges.members(
        key: "unassigned", ids: hidden.map(\.id.rawValue), assignments: [], targets: hidden.map(\.target.rawValue),
        totals: { board.totalsJSON(ItemID($0)) })
      return .object(members)
    }
    let now = place(of: item)
    if let before {
      return .object([
        ("kind", .string("move")), ("item", .string(id)), ("list", .string(now.list.rawValue)),
        ("index", .int(now.index)), ("after", now.after),
        ("from", .object([("list", .string(before.list.rawValue)), ("index", .int(before.index))])),
      ])
    }
    let kind = isNew ? "insert" : "restore"
    var members: [(key: String, value: JSONValue)] = [
      ("kind", .string(kind)), ("item", .string(id)), ("list", .string(now.list.rawValue)),
      ("index", .int(now.index)), ("after", now.after), ("fields", fieldsJSON(of: item)),
    ]
    if !isNew {
      let earlier = Set(assignmentsBefore.map(\.id))
      let shown = board.assignments.filter { !earlier.contains($0.id) }
      let board = self
      members += AssignmentChanges.members(
        key: "assigned", ids: [], assignments: shown.map { ($0.id.rawValue, $0.item.rawValue, $0.target.rawValue) },
        targets: shown.map(\.target.rawValue), totals: { board.totalsJSON(ItemID($0)) })
    }
    return .object(members)
  }

  mutating func applyListOp(_ op: Op, list: ListID) -> JSONValue {
    let wasLive = board.isLive(list)
    let isDelete = op.kind == "deleteList"
    let assignmentsBefore = isDelete ? board.assignments : []
    board.apply(op)
    let id = list.rawValue
    guard board.isLive(list) else {
      var members: [(key: String, value: JSONValue)] = [("kind", .string("deleteList")), ("list", .string(id))]
      let after = Set(board.assignments.map(\.id))
      let hidden = assignmentsBefore.filter { !after.contains($0.id) }
      let board = self
      members += AssignmentChanges.members(
        key: "unassigned", ids: hidden.map(\.id.rawValue), assignments: [], targets: hidden.map(\.target.rawValue),
        totals: { board.totalsJSON(ItemID($0)) })
      return .object(members)
    }
    let p = listPlace(of: list)
    guard !wasLive, let info = board.lists.first(where: { $0.id == list }) else {
      return .object([
        ("kind", .string("moveList")), ("list", .string(id)), ("index", .int(p.index)), ("after", p.after),
      ])
    }
    return .object([
      ("kind", .string("createList")), ("list", .string(id)), ("title", .string(info.title)),
      ("layout", .string(info.layout.rawValue)), ("index", .int(p.index)), ("after", p.after),
    ])
  }
}

extension Op.Action {
  /// The list an item op names (for a resolved `delete` of an item nobody can see).
  fileprivate var listOfItemOp: ListID {
    switch self {
    case .insert(_, let list, _, _), .move(_, let list, _): return list
    default: return ListID("")
    }
  }
}
