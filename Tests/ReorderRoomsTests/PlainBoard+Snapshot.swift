@testable import ReorderRooms

extension PlainBoard {
  /// A JSON snapshot: lists with their ordered item ids, every item, every assignment.
  public func snapshot() -> [UInt8] {
    let listsJSON: [JSONValue] = lists.map {
      .object([
        ("id", .string($0.id)), ("title", .string($0.title)), ("layout", .string($0.layout)),
        ("items", .array($0.items.map { .string($0) })),
      ])
    }
    let itemsJSON: [JSONValue] = items.keys.sorted().map { id in
      let s = items[id]!
      return .object([
        ("id", .string(id)), ("list", .string(s.list)), ("alive", .bool(s.alive)),
        ("fields", PlainBoard.fieldsJSON(s.fields)), ("lastAfter", .stringOrNull(s.lastAfter)),
        ("lastIndex", .int(s.lastIndex)),
      ])
    }
    let assignmentsJSON: [JSONValue] = assignments.map {
      .object([("id", .string($0.id)), ("item", .string($0.item)), ("target", .string($0.target))])
    }
    return JSONValue.object([
      ("plainBoard", .int(1)), ("lists", .array(listsJSON)), ("items", .array(itemsJSON)),
      ("assignments", .array(assignmentsJSON)),
    ]).encoded()
  }

  /// Restores a board from `snapshot()` bytes.
  public init(snapshot bytes: [UInt8]) throws {
    let v = try JSONValue.parse(bytes, maxDepth: 8)
    guard v["plainBoard"] == .int(1), case .array(let ls)? = v["lists"], case .array(let its)? = v["items"],
      case .array(let asg)? = v["assignments"]
    else { throw BoardDataError("not a plain board snapshot") }
    self.init()
    for l in ls {
      guard let id = l["id"]?.stringValue, let title = l["title"]?.stringValue, let layout = l["layout"]?.stringValue,
        case .array(let ids)? = l["items"]
      else { throw BoardDataError("bad list in snapshot") }
      lists.append(ListState(id: id, title: title, layout: layout, items: ids.compactMap(\.stringValue)))
    }
    for i in its {
      guard let id = i["id"]?.stringValue, let list = i["list"]?.stringValue, case .bool(let alive)? = i["alive"] else {
        throw BoardDataError("bad item in snapshot")
      }
      var fields: [String: WireFieldValue] = [:]
      for m in i["fields"]?.objectMembers ?? [] { fields[m.key] = try? Field.fieldValue(m.value, m.key) }
      items[id] = ItemState(
        list: list, alive: alive, fields: fields, lastAfter: i["lastAfter"]?.stringValue,
        lastIndex: Int(i["lastIndex"]?.numberValue ?? 0))
    }
    for a in asg {
      guard let id = a["id"]?.stringValue, let item = a["item"]?.stringValue, let target = a["target"]?.stringValue
      else { throw BoardDataError("bad assignment in snapshot") }
      assignments.append((id, item, target))
    }
  }
}
