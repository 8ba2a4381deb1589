/// The JSON form of ops (version 1), e.g.
/// `{"v":1,"id":"7@1","kind":"move","item":"3@1","list":"1@1","parent":"5@2","side":"left"}`.
///
/// Op and position ids are `"<counter>@<replica>"` strings (so 64-bit replica ids survive JSON);
/// `"parent":null` is the sequence root. `insert` adds `"fields":{…}`; `set` has `"field"` and
/// `"value"`; `assign` has `"assignment"`, `"item"`, `"target"`; `createList` has `"title"` and
/// `"layout"`.
extension Op {
  /// Current JSON format version (the `"v"` member).
  public static let jsonVersion = 1

  /// The JSON form.
  /// - Complexity: O(size of the op).
  public var json: JSONValue {
    var o: [String: JSONValue] = ["v": .number(Double(Op.jsonVersion)), "id": .string(id.description)]
    o["kind"] = .string(kind)
    func anchor(_ a: Anchor) {
      o["parent"] = a.parent.map { .string($0.description) } ?? .null
      o["side"] = .string(a.side == .left ? "left" : "right")
    }
    switch action {
    case .insert(let item, let list, let a, let fields):
      o["item"] = .string(item.rawValue)
      o["list"] = .string(list.rawValue)
      anchor(a)
      o["fields"] = .object(fields.mapValues(Op.jsonValue))
    case .move(let item, let list, let a):
      o["item"] = .string(item.rawValue)
      o["list"] = .string(list.rawValue)
      anchor(a)
    case .delete(let item), .restore(let item):
      o["item"] = .string(item.rawValue)
    case .set(let item, let field, let value):
      o["item"] = .string(item.rawValue)
      o["field"] = .string(field)
      o["value"] = Op.jsonValue(value)
    case .assign(let assignment, let item, let target):
      o["assignment"] = .string(assignment.rawValue)
      o["item"] = .string(item.rawValue)
      o["target"] = .string(target.rawValue)
    case .unassign(let assignment):
      o["assignment"] = .string(assignment.rawValue)
    case .createList(let list, let title, let layout, let a):
      o["list"] = .string(list.rawValue)
      o["title"] = .string(title)
      o["layout"] = .string(layout.rawValue)
      anchor(a)
    case .moveList(let list, let a):
      o["list"] = .string(list.rawValue)
      anchor(a)
    case .deleteList(let list):
      o["list"] = .string(list.rawValue)
    }
    return .object(o)
  }

  /// Decodes the JSON form; throws ``BoardError/malformed(_:)`` naming the bad member.
  /// - Complexity: O(size of the value).
  public init(json: JSONValue) throws(BoardError) {
    guard case .object(let o) = json else { throw .malformed("op JSON must be an object") }
    guard let v = o["v"]?.numberValue, v == Double(Op.jsonVersion) else {
      throw .malformed("op JSON needs \"v\":\(Op.jsonVersion)")
    }
    guard let idText = o["id"]?.stringValue, let id = OpID(text: idText), id.counter > 0 else {
      throw .malformed("op JSON needs \"id\" as \"<counter>@<replica>\"")
    }
    func text(_ key: String, max: Int = BoardLimits.maxIDBytes) throws(BoardError) -> String {
      guard let s = o[key]?.stringValue, !s.isEmpty, s.utf8.count <= max else {
        throw .malformed("op JSON needs a non-empty string \"\(key)\"")
      }
      return s
    }
    func anchor() throws(BoardError) -> Anchor {
      let side: Side
      switch o["side"]?.stringValue {
      case "left": side = .left
      case "right": side = .right
      default: throw .malformed("op JSON needs \"side\" left or right")
      }
      switch o["parent"] {
      case .null?: return Anchor(parent: nil, side: side)
      case .string(let s)?:
        guard let p = OpID(text: s) else { throw .malformed("bad \"parent\" id") }
        return Anchor(parent: p, side: side)
      default: throw .malformed("op JSON needs \"parent\" (id or null)")
      }
    }
    let action: Action
    switch o["kind"]?.stringValue {
    case "insert":
      guard case .object(let fo)? = o["fields"], fo.count <= BoardLimits.maxFields else {
        throw .malformed("insert needs \"fields\" (an object of at most \(BoardLimits.maxFields))")
      }
      var fields: [String: FieldValue] = [:]
      for (k, v) in fo { fields[k] = try Op.fieldValue(v) }
      action = .insert(
        item: ItemID(try text("item")), list: ListID(try text("list")), anchor: try anchor(), fields: fields)
    case "move": action = .move(item: ItemID(try text("item")), list: ListID(try text("list")), anchor: try anchor())
    case "delete": action = .delete(item: ItemID(try text("item")))
    case "restore": action = .restore(item: ItemID(try text("item")))
    case "set":
      guard let value = o["value"] else { throw .malformed("set needs \"value\"") }
      action = .set(
        item: ItemID(try text("item")), field: try text("field", max: BoardLimits.maxFieldNameBytes),
        value: try Op.fieldValue(value))
    case "assign":
      action = .assign(
        assignment: AssignmentID(try text("assignment")), item: ItemID(try text("item")),
        target: ItemID(try text("target")))
    case "unassign": action = .unassign(assignment: AssignmentID(try text("assignment")))
    case "createList":
      guard let title = o["title"]?.stringValue, title.utf8.count <= BoardLimits.maxStringBytes else {
        throw .malformed("createList needs a string \"title\"")
      }
      guard let layout = o["layout"]?.stringValue.flatMap(Layout.init(rawValue:)) else {
        throw .malformed("createList needs \"layout\" list or grid")
      }
      action = .createList(list: ListID(try text("list")), title: title, layout: layout, anchor: try anchor())
    case "moveList": action = .moveList(list: ListID(try text("list")), anchor: try anchor())
    case "deleteList": action = .deleteList(list: ListID(try text("list")))
    default: throw .malformed("unknown op \"kind\"")
    }
    self.init(id: id, action: action)
  }

  /// Parses the JSON text form.
  public init(jsonText: String) throws(BoardError) {
    try self.init(json: try JSONValue.parse(jsonText))
  }

  static func jsonValue(_ v: FieldValue) -> JSONValue {
    switch v {
    case .string(let s): .string(s)
    case .number(let d): .number(d)
    case .bool(let b): .bool(b)
    }
  }

  static func fieldValue(_ v: JSONValue) throws(BoardError) -> FieldValue {
    switch v {
    case .string(let s) where s.utf8.count <= BoardLimits.maxStringBytes: return .string(s)
    case .number(let d): return .number(d)
    case .bool(let b): return .bool(b)
    default: throw .malformed("a field value must be a string (≤ \(BoardLimits.maxStringBytes) bytes), number or bool")
    }
  }
}

extension FieldValue {
  /// The value as JSON.
  public var json: JSONValue { Op.jsonValue(self) }
}
