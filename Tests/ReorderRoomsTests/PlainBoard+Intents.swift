@testable import ReorderRooms

extension PlainBoard {
  public mutating func perform(_ intent: Intent, ids: GeneratedIDs) throws(ProtocolError) -> (
    logged: [UInt8], resolved: JSONValue
  ) {
    let resolved = try resolve(intent, ids: ids)
    try! apply(resolved)
    return (resolved.encoded(), resolved)
  }

  /// Validates an intent against the current state and returns the resolved op (nothing changes).
  func resolve(_ intent: Intent, ids: GeneratedIDs) throws(ProtocolError) -> JSONValue {
    switch intent {
    case .insert(let list, let after, let before, let fields, let item):
      let id = item ?? ids.item
      guard items[id] == nil else { throw ProtocolError(.duplicateItem, "an item with this id already exists") }
      guard let l = listIndex(list) else { throw ProtocolError(.unknownList, "no list with this id") }
      let index = try anchorIndex(in: lists[l].items, after: after, before: before)
      return .object([
        ("kind", .string("insert")), ("item", .string(id)), ("list", .string(list)), ("index", .int(index)),
        ("after", .stringOrNull(index > 0 ? lists[l].items[index - 1] : nil)),
        ("fields", PlainBoard.fieldsJSON(fields)),
      ])
    case .move(let item, let list, let after, let before):
      guard let from = position(of: item) else { throw ProtocolError(.unknownItem, "no live item with this id") }
      guard let l = listIndex(list) else { throw ProtocolError(.unknownList, "no list with this id") }
      guard after != item, after != nil || before != item else {
        throw ProtocolError(.invalidAnchor, "an item cannot move next to itself")
      }
      let others = lists[l].items.filter { $0 != item }
      let index = try anchorIndex(in: others, after: after, before: before)
      return .object([
        ("kind", .string("move")), ("item", .string(item)), ("list", .string(list)), ("index", .int(index)),
        ("after", .stringOrNull(index > 0 ? others[index - 1] : nil)),
        ("from", .object([("list", .string(lists[from.list].id)), ("index", .int(from.index))])),
      ])
    case .delete(let item):
      guard let state = items[item], state.alive else { throw ProtocolError(.unknownItem, "no live item with this id") }
      var after = self
      after.items[item]?.alive = false
      let hidden = liveAssignments.filter { $0.item == item || $0.target == item }
      var op: [(key: String, value: JSONValue)] = [
        ("kind", .string("delete")), ("item", .string(item)), ("list", .string(state.list)),
      ]
      op += AssignmentChanges.members(
        key: "unassigned", ids: hidden.map(\.id), assignments: [], targets: hidden.map(\.target),
        totals: { PlainBoard.totalsJSON(after.totals(of: $0)) })
      return .object(op)
    case .restore(let item):
      guard let state = items[item] else { throw ProtocolError(.unknownItem, "no item with this id") }
      guard let l = listIndex(state.list) else { throw ProtocolError(.unknownItem, "the item's list was deleted") }
      guard !state.alive else { throw ProtocolError(.invalidField, "the item is not deleted") }
      let current = lists[l].items
      var index = min(state.lastIndex, current.count)
      if let anchor = state.lastAfter, let i = current.firstIndex(of: anchor) { index = i + 1 }
      if state.lastAfter == nil { index = 0 }
      var after = self
      after.items[item]?.alive = true
      let shown = after.liveAssignments.filter { $0.item == item || $0.target == item }
      var op: [(key: String, value: JSONValue)] = [
        ("kind", .string("restore")), ("item", .string(item)), ("list", .string(state.list)), ("index", .int(index)),
        ("after", .stringOrNull(index > 0 ? current[index - 1] : nil)), ("fields", PlainBoard.fieldsJSON(state.fields)),
      ]
      op += AssignmentChanges.members(
        key: "assigned", ids: [], assignments: shown.map { ($0.id, $0.item, $0.target) }, targets: shown.map(\.target),
        totals: { PlainBoard.totalsJSON(after.totals(of: $0)) })
      return .object(op)
    case .set(let item, let field, let value):
      guard let state = items[item] else { throw ProtocolError(.unknownItem, "no item with this id") }
      guard listIndex(state.list) != nil else { throw ProtocolError(.unknownItem, "the item's list was deleted") }
      return .object([
        ("kind", .string("set")), ("item", .string(item)), ("field", .string(field)), ("value", value.json),
      ])
    case .assign(let item, let target):
      guard hasLiveItem(item) else { throw ProtocolError(.unknownItem, "no live item with this id") }
      guard hasLiveItem(target) else { throw ProtocolError(.unknownItem, "no live target item with this id") }
      guard item != target else { throw ProtocolError(.invalidField, "an item cannot be assigned to itself") }
      var t = totals(of: target)
      t.count += 1
      t.sum += PlainBoard.summand(items[item]?.fields["price"])
      return .object([
        ("kind", .string("assign")), ("assignment", .string(ids.assignment)), ("item", .string(item)),
        ("target", .string(target)), ("totals", PlainBoard.totalsJSON(t)),
      ])
    case .unassign(let assignment):
      guard let a = assignments.first(where: { $0.id == assignment }), isLive(a) else {
        throw ProtocolError(.unknownAssignment, "no assignment with this id")
      }
      var t = totals(of: a.target)
      t.count -= 1
      t.sum -= PlainBoard.summand(items[a.item]?.fields["price"])
      return .object([
        ("kind", .string("unassign")), ("assignment", .string(assignment)), ("item", .string(a.item)),
        ("target", .string(a.target)), ("totals", PlainBoard.totalsJSON(t)),
      ])
    case .createList(let list, let title, let layout, let after):
      let id = list ?? ids.list
      guard listIndex(id) == nil else { throw ProtocolError(.duplicateList, "a list with this id already exists") }
      let index = try listAnchorIndex(after: after, excluding: nil)
      return .object([
        ("kind", .string("createList")), ("list", .string(id)), ("title", .string(title)), ("layout", .string(layout)),
        ("index", .int(index)), ("after", .stringOrNull(index > 0 ? lists[index - 1].id : nil)),
      ])
    case .moveList(let list, let after):
      guard listIndex(list) != nil else { throw ProtocolError(.unknownList, "no list with this id") }
      guard after != list else { throw ProtocolError(.invalidAnchor, "a list cannot move next to itself") }
      let index = try listAnchorIndex(after: after, excluding: list)
      let others = lists.filter { $0.id != list }
      return .object([
        ("kind", .string("moveList")), ("list", .string(list)), ("index", .int(index)),
        ("after", .stringOrNull(index > 0 ? others[index - 1].id : nil)),
      ])
    case .deleteList(let list):
      guard let l = listIndex(list) else { throw ProtocolError(.unknownList, "no list with this id") }
      // Its items stop being live, and so do the assignments of (and onto) them.
      var after = self
      for id in lists[l].items { after.items[id]?.alive = false }
      let hidden = liveAssignments.filter { !after.isLive($0) }
      var op: [(key: String, value: JSONValue)] = [("kind", .string("deleteList")), ("list", .string(list))]
      op += AssignmentChanges.members(
        key: "unassigned", ids: hidden.map(\.id), assignments: [], targets: hidden.map(\.target),
        totals: { PlainBoard.totalsJSON(after.totals(of: $0)) })
      return .object(op)
    }
  }

  /// Index for an item placed after `after` (else before `before`, else at the end) in `order`.
  func anchorIndex(in order: [String], after: String?, before: String?) throws(ProtocolError) -> Int {
    if let after {
      guard let i = order.firstIndex(of: after) else {
        throw ProtocolError(.invalidAnchor, "'after' is not an item of the target list")
      }
      return i + 1
    }
    if let before {
      guard let i = order.firstIndex(of: before) else {
        throw ProtocolError(.invalidAnchor, "'before' is not an item of the target list")
      }
      return i
    }
    return order.count
  }

  /// Index for a list placed after `after` (absent: first).
  func listAnchorIndex(after: String?, excluding: String?) throws(ProtocolError) -> Int {
    guard let after else { return 0 }
    let others = lists.filter { $0.id != excluding }
    guard let i = others.firstIndex(where: { $0.id == after }) else {
      throw ProtocolError(.invalidAnchor, "'after' is not a list of the board")
    }
    return i + 1
  }
}
