import ReorderRooms

/// The wire form of a client message, written independently of the decoder (the server never sends
/// these), so that the fuzz targets can check `decode(encode(m)) == m`.
extension ClientMessage {
  /// The JSON object a client would send for this message.
  public var fuzzJSON: JSONValue {
    switch self {
    case .hello(let h):
      return .members([
        "type": .string("hello"), "room": .string(h.room), "client": .string(h.client), "name": .string(h.name),
        "color": .string(h.color), "since": h.since.map { .number(Double($0)) }, "epoch": h.epoch.map { .string($0) },
        "token": h.token.map { .string($0) },
      ])
    case .op(let request):
      return .members(["type": .string("op"), "id": .string(request.id), "op": request.intent.fuzzJSON])
    case .drag(let d):
      return .members([
        "type": .string("drag"), "phase": .string(d.phase.rawValue), "item": .string(d.item),
        "list": d.list.map { .string($0) }, "over": d.over.map { .string($0) }, "index": d.index.map { .int($0) },
        "x": d.x.map { .number($0) }, "y": d.y.map { .number($0) }, "t": d.t,
      ])
    case .refresh(let token):
      return .members(["type": .string("refresh"), "token": .string(token)])
    case .presence(let state):
      return .members(["type": .string("presence"), "state": state])
    case .broadcast(let event):
      return .members(["type": .string("broadcast"), "event": event])
    case .history(let request):
      return .members([
        "type": .string("history"), "before": request.before.map { .number(Double($0)) },
        "limit": .int(request.limit),
      ])
    }
  }
}

extension Intent {
  /// The `op` member of an `op` frame for this intent.
  public var fuzzJSON: JSONValue {
    func s(_ text: String?) -> JSONValue? { text.map { .string($0) } }
    switch self {
    case .insert(let list, let after, let before, let fields, let item):
      let members = fields.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value.json) }
      return .members([
        "kind": .string(kind), "list": .string(list), "after": s(after), "before": s(before),
        "fields": .object(members), "item": s(item),
      ])
    case .move(let item, let list, let after, let before):
      return .members([
        "kind": .string(kind), "item": .string(item), "list": .string(list), "after": s(after), "before": s(before),
      ])
    case .delete(let item), .restore(let item):
      return .members(["kind": .string(kind), "item": .string(item)])
    case .set(let item, let field, let value):
      return .members(["kind": .string(kind), "item": .string(item), "field": .string(field), "value": value.json])
    case .assign(let item, let target):
      return .members(["kind": .string(kind), "item": .string(item), "target": .string(target)])
    case .unassign(let assignment):
      return .members(["kind": .string(kind), "assignment": .string(assignment)])
    case .createList(let list, let title, let layout, let after):
      return .members([
        "kind": .string(kind), "list": s(list), "title": .string(title), "layout": .string(layout), "after": s(after),
      ])
    case .moveList(let list, let after):
      return .members(["kind": .string(kind), "list": .string(list), "after": s(after)])
    case .deleteList(let list):
      return .members(["kind": .string(kind), "list": .string(list)])
    }
  }
}
