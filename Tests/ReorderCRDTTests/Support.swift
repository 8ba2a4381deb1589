import ReorderCRDT

/// Everything observable through the public queries, as one comparable string.
func fingerprint(_ board: Board) -> String {
  var out = ""
  for list in board.lists {
    out +=
      "list \(list.id) \(list.title) \(list.layout): \(board.items(in: list.id).map(\.rawValue).joined(separator: " "))\n"
  }
  for id in board.allItems {
    let info = board.item(id)!
    let fields = info.fields.keys.sorted().map { "\($0)=\(info.fields[$0]!)" }.joined(separator: ",")
    out += "item \(id) \(info.list) \(info.alive) \(fields) \(board.totals(of: id))\n"
  }
  for a in board.assignments { out += "assign \(a.id) \(a.item)->\(a.target)\n" }
  return out
}

/// Visible item names of a list.
func names(_ board: Board, _ list: ListID = "L1") -> String {
  board.items(in: list).map(\.rawValue).joined(separator: " ")
}

/// A base state made by replica 1: list L1 (plus `extraLists`) with `items` in order; returns one
/// board per replica id, all having applied the same setup ops.
func makeBase(_ items: [String], replicas: [UInt64] = [1, 2, 3], extraLists: [String] = []) -> [Board] {
  var a = Board(replica: ReplicaID(replicas[0]))
  var ops: [Op] = []
  ops.append(try! a.createList("L1", title: "One", layout: .list, after: nil))
  var previousList: ListID = "L1"
  for l in extraLists {
    ops.append(try! a.createList(ListID(l), title: l, layout: .grid, after: previousList))
    previousList = ListID(l)
  }
  var previous: ItemID? = nil
  for name in items {
    ops.append(try! a.insert(list: "L1", after: previous, before: nil, fields: [:], item: ItemID(name)))
    previous = ItemID(name)
  }
  var boards = [a]
  for r in replicas.dropFirst() {
    var b = Board(replica: ReplicaID(r))
    for op in ops { b.apply(op) }
    boards.append(b)
  }
  for b in boards { b.checkInvariants() }
  return boards
}

/// Delivers `ops` to `board` in order, each `times` times, checking invariants after each.
func deliver(_ ops: [Op], to board: inout Board, times: Int = 1) {
  for op in ops {
    for _ in 0..<times {
      board.apply(op)
      board.checkInvariants()
    }
  }
}

/// The full exchange of a scenario: every replica gets every other replica's ops, in both orders
/// of the replicas and with each op delivered once and twice, plus a fresh observer from `base`
/// getting everything. Checks all end states are identical and returns one of them.
func exchangeAll(base: Board, boards: [Board], ops: [[Op]]) -> Board {
  var results: [Board] = []
  for reversed in [false, true] {
    let order = reversed ? Array(ops.indices.reversed()) : Array(ops.indices)
    for times in [1, 2] {
      for (r, board) in boards.enumerated() {
        var b = board
        for k in order where k != r { deliver(ops[k], to: &b, times: times) }
        results.append(b)
      }
      var observer = base
      for k in order { deliver(ops[k], to: &observer, times: times) }
      results.append(observer)
    }
  }
  let first = fingerprint(results[0])
  for b in results {
    precondition(fingerprint(b) == first, "replicas diverged:\n\(first)\nvs\n\(fingerprint(b))")
    precondition(b.pendingCount == 0, "nothing left in the causal buffer")
  }
  return results[0]
}
