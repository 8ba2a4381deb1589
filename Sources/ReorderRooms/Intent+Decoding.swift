extension Intent {
  /// Decodes the `op` member of an `op` frame.
  public static func decode(_ v: JSONValue) throws(ProtocolError) -> Intent {
    let kind = try Field.string(v, "kind")
    switch kind {
    case "insert":
      let fieldsValue = try Field.value(v, "fields")
      guard case .object(let members) = fieldsValue else {
        throw ProtocolError.wrongType("fields", expected: "an object", got: fieldsValue)
      }
      guard members.count <= WireLimits.maxFields else {
        throw ProtocolError.invalid("fields", "must have at most \(WireLimits.maxFields) members")
      }
      var fields: [String: WireFieldValue] = [:]
      for member in members {
        try Field.fieldName(member.key, "fields")
        fields[member.key] = try Field.fieldValue(member.value, "fields." + member.key)
      }
      return .insert(
        list: try Field.id(v, "list"), after: try Field.optionalID(v, "after"),
        before: try Field.optionalID(v, "before"), fields: fields, item: try Field.optionalID(v, "item"))
    case "move":
      return .move(
        item: try Field.id(v, "item"), list: try Field.id(v, "list"),
        after: try Field.optionalID(v, "after"), before: try Field.optionalID(v, "before"))
    case "delete": return .delete(item: try Field.id(v, "item"))
    case "restore": return .restore(item: try Field.id(v, "item"))
    case "set":
      let field = try Field.string(v, "field")
      try Field.fieldName(field, "field")
      return .set(
        item: try Field.id(v, "item"), field: field, value: try Field.fieldValue(try Field.value(v, "value"), "value"))
    case "assign": return .assign(item: try Field.id(v, "item"), target: try Field.id(v, "target"))
    case "unassign": return .unassign(assignment: try Field.id(v, "assignment"))
    case "createList":
      let layout = try Field.string(v, "layout")
      guard layout == "list" || layout == "grid" else { throw ProtocolError.invalid("layout", "must be list or grid") }
      return .createList(
        list: try Field.optionalID(v, "list"),
        title: try Field.text(v, "title", maxBytes: WireLimits.maxFieldValueBytes), layout: layout,
        after: try Field.optionalID(v, "after"))
    case "moveList": return .moveList(list: try Field.id(v, "list"), after: try Field.optionalID(v, "after"))
    case "deleteList": return .deleteList(list: try Field.id(v, "list"))
    default:
      throw ProtocolError(
        .unknownKind,
        "unknown op kind; expected insert, move, delete, restore, set, assign, unassign, createList, moveList or deleteList"
      )
    }
  }
}
