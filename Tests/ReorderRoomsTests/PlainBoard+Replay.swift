@testable import ReorderRooms

extension PlainBoard {
  public mutating func replay(_ logged: [UInt8]) throws {
    try apply(try JSONValue.parse(logged))
  }

  /// Applies a resolved op (from `resolve`, or read back from the log).
  mutating func apply(_ op: JSONValue) throws {
    func str(_ k: String) throws -> String {
      guard let s = op[k]?.stringValue else { throw BoardDataError("resolved op without '\(k)'") }
      return s
    }
    func int(_ k: String) throws -> Int {
      guard let n = op[k]?.numberValue else { throw BoardDataError("resolved op without '\(k)'") }
      return Int(n)
    }
    switch try str("kind") {
    case "insert":
      var fields: [String: WireFieldValue] = [:]
      for m in op["fields"]?.objectMembers ?? [] { fields[m.key] = try? Field.fieldValue(m.value, m.key) }
      let id = try str("item")
      items[id] = ItemState(list: try str("list"), alive: true, fields: fields, lastAfter: nil, lastIndex: 0)
      try place(id, list: try str("list"), index: try int("index"))
    case "move", "restore":
      let id = try str("item")
      unplace(id)
      items[id]?.alive = true
      items[id]?.list = try str("list")
      try place(id, list: try str("list"), index: try int("index"))
    case "delete":
      let id = try str("item")
      unplace(id)
      items[id]?.alive = false
    case "set":
      guard let value = op["value"] else { throw BoardDataError("resolved set without 'value'") }
      items[try str("item")]?.fields[try str("field")] = try Field.fieldValue(value, "value")
    case "assign":
      assignments.append((try str("assignment"), try str("item"), try str("target")))
    case "unassign":
      let id = try str("assignment")
      assignments.removeAll { $0.id == id }
    case "createList":
      let list = ListState(id: try str("list"), title: try str("title"), layout: try str("layout"), items: [])
      lists.insert(list, at: min(try int("index"), lists.count))
    case "moveList":
      let id = try str("list")
      guard let l = listIndex(id) else { throw BoardDataError("moveList of an unknown list") }
      let list = lists.remove(at: l)
      lists.insert(list, at: min(try int("index"), lists.count))
    case "deleteList":
      let id = try str("list")
      guard let l = listIndex(id) else { throw BoardDataError("deleteList of an unknown list") }
      for item in lists[l].items { items[item]?.alive = false }
      lists.remove(at: l)
    default:
      throw BoardDataError("unknown resolved op kind")
    }
  }

  private mutating func unplace(_ id: String) {
    guard let (l, i) = position(of: id) else { return }
    lists[l].items.remove(at: i)
  }

  private mutating func place(_ id: String, list: String, index: Int) throws {
    guard let l = listIndex(list) else { throw BoardDataError("resolved op names an unknown list") }
    let i = max(0, min(index, lists[l].items.count))
    lists[l].items.insert(id, at: i)
    items[id]?.lastIndex = i
    items[id]?.lastAfter = i > 0 ? lists[l].items[i - 1] : nil
  }
}
