import ReorderRooms

/// What a thin client keeps: lists of item ids, rebuilt from `welcome.board` and the resolved ops
/// of `applied` alone (the tests check that this is enough to stay identical to the server).
struct ClientModel: Equatable {
  var order: [String] = []
  var lists: [String: [String]] = [:]
  var seq: UInt64 = 0

  init(welcome: JSONValue) {
    seq = UInt64(welcome["seq"]?.numberValue ?? 0)
    guard case .array(let ls)? = welcome["board"]?["lists"] else { return }
    for l in ls {
      guard let id = l["id"]?.stringValue else { continue }
      order.append(id)
      lists[id] = boardItems(welcome["board"], list: id)
    }
  }

  /// Where an item is; nil when not shown.
  func find(_ item: String) -> (list: String, index: Int)? {
    for (list, items) in lists { if let i = items.firstIndex(of: item) { return (list, i) } }
    return nil
  }

  /// Number of lists showing `item` (must be 0 or 1).
  func occurrences(_ item: String) -> Int { lists.values.reduce(0) { $0 + $1.filter { $0 == item }.count } }

  mutating func apply(_ applied: JSONValue) {
    guard let op = applied["op"], let kind = op["kind"]?.stringValue else { return }
    seq = UInt64(applied["seq"]?.numberValue ?? 0)
    let item = op["item"]?.stringValue ?? ""
    let list = op["list"]?.stringValue ?? ""
    let index = Int(op["index"]?.numberValue ?? 0)
    switch kind {
    case "insert", "move", "restore":
      if let at = find(item) { lists[at.list]!.remove(at: at.index) }
      lists[list, default: []].insert(item, at: min(index, lists[list]?.count ?? 0))
    case "delete":
      if let at = find(item) { lists[at.list]!.remove(at: at.index) }
    case "createList":
      lists[list] = []
      order.insert(list, at: min(index, order.count))
    case "moveList":
      order.removeAll { $0 == list }
      order.insert(list, at: min(index, order.count))
    case "deleteList":
      order.removeAll { $0 == list }
      lists[list] = nil
    default: break
    }
  }
}

extension RoomClient {
  /// Receives `applied` frames until seq `target`, applying them to `model`; returns their seqs.
  func follow(_ model: inout ClientModel, until target: UInt64, timeout: Double = 20) throws -> [UInt64] {
    var seqs: [UInt64] = []
    while model.seq < target {
      let applied = try next(type: "applied", timeout: timeout)
      let seq = UInt64(applied["seq"]?.numberValue ?? 0)
      if seq <= model.seq { continue }
      model.apply(applied)
      seqs.append(seq)
    }
    return seqs
  }
}
