@testable import ReorderRooms

/// What a client holds, as the web client builds it (web/js/model.js `applyResolved`): the board
/// of its `welcome`, then every resolved `applied.op` in seq order. Compared with a fresh
/// welcome's board, it shows that the resolved ops a node sent describe its board.
struct ClientBoardModel: Equatable {
  struct List: Equatable {
    var id: String
    var title: String
    var layout: String
    var items: [String]
  }

  var lists: [List] = []
  var fields: [String: JSONValue] = [:]
  var assignments: [String: [String]] = [:]
  /// Totals by target, as last sent (`welcome.board.totals`, then each op's `totals`).
  var totals: [String: JSONValue] = [:]
  var seq: UInt64 = 0

  /// A model of `welcome.board` at `seq`.
  init(board: JSONValue, seq: UInt64 = 0) {
    self.seq = seq
    for list in board["lists"]?.arrayItems ?? [] {
      var items: [String] = []
      for item in list["items"]?.arrayItems ?? [] {
        let id = item["id"]!.stringValue!
        items.append(id)
        fields[id] = item["fields"]
      }
      lists.append(
        List(
          id: list["id"]!.stringValue!, title: list["title"]?.stringValue ?? "",
          layout: list["layout"]?.stringValue ?? "",
          items: items))
    }
    for a in board["assignments"]?.arrayItems ?? [] {
      assignments[a["id"]!.stringValue!] = [a["item"]!.stringValue!, a["target"]!.stringValue!]
    }
    for (target, value) in board["totals"]?.objectMembers ?? [] { totals[target] = value }
  }

  /// The model a connection ends with: its last welcome (a board, or a catch-up on the model it
  /// had), then the `applied` frames after it; nil when it got no welcome.
  static func from(frames: [JSONValue]) -> ClientBoardModel? {
    var model: ClientBoardModel?
    for frame in frames {
      switch frame["type"]?.stringValue {
      case "welcome":
        let seq = UInt64(frame["seq"]!.numberValue!)
        if let board = frame["board"] {
          model = ClientBoardModel(board: board, seq: seq)
        } else {
          for op in frame["ops"]?.arrayItems ?? [] { model?.applied(op) }
        }
      case "applied": model?.applied(frame)
      default: break
      }
    }
    return model
  }

  /// An `applied` frame: applied when it is the next seq, ignored when already seen.
  mutating func applied(_ frame: JSONValue) {
    let at = UInt64(frame["seq"]!.numberValue!)
    guard at > seq else { return }
    precondition(at == seq + 1, "a gap in the applied frames: \(seq) then \(at)")
    seq = at
    apply(frame["op"]!)
  }

  mutating func apply(_ op: JSONValue) {
    let item = op["item"]?.stringValue ?? ""
    // `totals` is one target's (assign, unassign) or a map of targets (delete, restore, deleteList).
    if let kind = op["kind"]?.stringValue, let sent = op["totals"] {
      if kind == "assign" || kind == "unassign" {
        if let target = op["target"]?.stringValue { totals[target] = sent }
      } else {
        for (target, value) in sent.objectMembers ?? [] { totals[target] = value }
      }
    }
    switch op["kind"]?.stringValue {
    case "insert", "restore":
      fields[item] = op["fields"] ?? fields[item]
      detach(item)
      if let l = lists.firstIndex(where: { $0.id == op["list"]?.stringValue }) { place(item, in: l, op) }
      for a in op["assigned"]?.arrayItems ?? [] {
        assignments[a["id"]!.stringValue!] = [a["item"]!.stringValue!, a["target"]!.stringValue!]
      }
    case "move":
      guard let l = lists.firstIndex(where: { $0.id == op["list"]?.stringValue }) else { return }
      detach(item)
      place(item, in: l, op)
    case "delete":
      for id in op["unassigned"]?.arrayItems ?? [] { assignments[id.stringValue!] = nil }
      detach(item)
      fields[item] = nil
    case "set":
      guard fields[item] != nil, let field = op["field"]?.stringValue else { return }
      var members = fields[item]!.objectMembers!.filter { $0.key != field }
      members.append((field, op["value"]!))
      fields[item] = .object(members.sorted { $0.key < $1.key })
    case "assign":
      assignments[op["assignment"]!.stringValue!] = [op["item"]!.stringValue!, op["target"]!.stringValue!]
    case "unassign":
      assignments[op["assignment"]!.stringValue!] = nil
    case "createList":
      let id = op["list"]!.stringValue!
      guard !lists.contains(where: { $0.id == id }) else { return }
      insertList(
        List(id: id, title: op["title"]?.stringValue ?? "", layout: op["layout"]?.stringValue ?? "", items: []), op)
    case "moveList":
      guard let l = lists.firstIndex(where: { $0.id == op["list"]?.stringValue }) else { return }
      insertList(lists.remove(at: l), op)
    case "deleteList":
      for id in op["unassigned"]?.arrayItems ?? [] { assignments[id.stringValue!] = nil }
      guard let l = lists.firstIndex(where: { $0.id == op["list"]?.stringValue }) else { return }
      for id in lists[l].items { fields[id] = nil }
      lists.remove(at: l)
    default: preconditionFailure("unknown op kind \(op)")
    }
  }

  mutating func detach(_ item: String) {
    for l in lists.indices { lists[l].items.removeAll { $0 == item } }
  }

  /// web/js/model.js `placeAfter`.
  mutating func place(_ item: String, in l: Int, _ op: JSONValue) {
    if let after = op["after"]?.stringValue, let i = lists[l].items.firstIndex(of: after) {
      lists[l].items.insert(item, at: i + 1)
      return
    }
    let count = lists[l].items.count
    let at = op["index"]?.numberValue.map(Int.init) ?? (op["after"] == .null ? 0 : count)
    lists[l].items.insert(item, at: max(0, min(at, count)))
  }

  /// web/js/model.js `insertList`.
  mutating func insertList(_ list: List, _ op: JSONValue) {
    if let after = op["after"]?.stringValue, let i = lists.firstIndex(where: { $0.id == after }) {
      lists.insert(list, at: i + 1)
      return
    }
    let at = op["index"]?.numberValue.map(Int.init) ?? (op["after"] == .null ? 0 : lists.count)
    lists.insert(list, at: max(0, min(at, lists.count)))
  }

  /// Equal boards, whatever seq each is at (totals of targets with assignments).
  func sameBoard(as other: ClientBoardModel) -> Bool {
    func counted(_ totals: [String: JSONValue]) -> [String: JSONValue] {
      totals.filter { ($0.value["count"]?.numberValue ?? 0) > 0 }
    }
    return lists == other.lists && assignments == other.assignments && counted(totals) == counted(other.totals)
      && fields.filter { id, _ in lists.contains { $0.items.contains(id) } }
        == other.fields.filter { id, _ in other.lists.contains { $0.items.contains(id) } }
  }
}

extension JSONValue {
  /// The items of an array, or nil for any other kind.
  var arrayItems: [JSONValue]? {
    if case .array(let items) = self { return items }
    return nil
  }
}
