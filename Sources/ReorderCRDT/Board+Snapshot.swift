/// Snapshots: the complete state (including tombstones, the causal buffer and the ids of applied
/// ops), so a replica loaded from one can still merge any concurrent op and dedupe old ones.
///
/// Format (version 2), all numbers varints:
/// `"RORD"`, version, lamport, replica table (ids sorted; later "replica" fields are indices into
/// it), field-name table, then per sequence its positions in full order (sentinel omitted): one
/// header `replica << 3 | side << 2 | parentForm` (parentForm 0: parent is the previous node,
/// 1: the next node, 2: a signed order-distance follows), then the counter. The Fugue tree is
/// rebuilt from the parent links and checked against the stored order; the order tree is bulk-built in
/// O(n). Then lists and items (places as indices into their sequence's full order; stamps
/// equal to the item's own generated id take one byte),
/// assignments, applied non-position op ids (delta-coded per replica) and buffered ops.
extension Board {
  /// The 4 magic bytes that open a snapshot: `RORD`.
  public static let snapshotMagic: [UInt8] = [0x52, 0x4F, 0x52, 0x44]
  /// Current snapshot format version.
  public static let snapshotVersion: UInt8 = 2

  /// The binary snapshot of the whole state.
  /// - Complexity: O(n) for n positions, items, assignments and remembered ops.
  public func encodedSnapshot() -> [UInt8] { encodeSnapshot(keeping: nil) }

  /// The snapshot of the state, with only the positions `kept` marks (by node) when it is given:
  /// each kept position then hangs as the right child of the kept one before it in the full order
  /// (a chain, so the full order of what is kept is unchanged), the applied op ids are left out, and
  /// lists, items and assignments are written sorted by id (see `Board+Compaction.swift`).
  /// - Complexity: O(n) for n positions, items, assignments and remembered ops.
  func encodeSnapshot(keeping kept: [Bool]?) -> [UInt8] {
    var w = ByteWriter(capacity: positions.nodes.count * 5 + itemTable.count * 24 + 256)
    w.bytes.append(contentsOf: Board.snapshotMagic)
    w.byte(Board.snapshotVersion)
    w.varint(lamport)
    let table = SnapshotTables(board: self, kept: kept)
    w.varint(table.replicas.count)
    for r in table.replicas { w.varint(r.rawValue) }
    w.varint(table.fieldNames.count)
    for name in table.fieldNames { w.string(name) }

    // Lists, items and assignments in table order; a compaction writes them sorted by id instead,
    // so that its bytes depend on the state only, not on the order ops arrived in.
    let canonical = kept != nil
    let listOrder = canonical ? listTable.indices.sorted { listIDs[$0] < listIDs[$1] } : Array(listTable.indices)
    let itemOrder = canonical ? itemIDs.indices.sorted { itemIDs[$0] < itemIDs[$1] } : Array(itemIDs.indices)
    let assignmentOrder =
      canonical
      ? assignmentTable.indices.sorted { assignmentTable[$0].id < assignmentTable[$1].id }
      : Array(assignmentTable.indices)
    var listRank = [Int](repeating: 0, count: listTable.count)
    for (k, l) in listOrder.enumerated() { listRank[l] = k }
    var itemRank = [Int](repeating: 0, count: itemTable.count)
    for (k, i) in itemOrder.enumerated() { itemRank[i] = k }

    w.varint(positions.sequenceCount)
    var orderIndex = [Int32](repeating: 0, count: positions.nodes.count)
    for s in [0] + listOrder.map({ listTable[$0].sequence }) {
      var order = positions.fullOrder(s)
      if let kept { order.removeAll { !kept[Int($0)] } }
      for (k, n) in order.enumerated() { orderIndex[Int(n)] = Int32(k) }
      w.varint(order.count - 1)
      for k in 1..<order.count {
        let node = positions.nodes[Int(order[k])]
        if kept != nil {
          // Right child of the previous kept position (form 0).
          w.varint(UInt64(table.replica(node.id.replica)) << 3 | UInt64(Side.right.rawValue) << 2)
          w.varint(node.id.counter)
          continue
        }
        let delta = Int(orderIndex[Int(node.parent)]) - k
        let form: UInt64 = delta == -1 ? 0 : delta == 1 ? 1 : 2
        w.varint(UInt64(table.replica(node.id.replica)) << 3 | UInt64(node.side.rawValue) << 2 | form)
        w.varint(node.id.counter)
        if form == 2 { w.signed(Int64(delta)) }
      }
    }

    w.varint(listTable.count)
    for (k, l) in listOrder.enumerated() {
      let list = listTable[l]
      let own = table.writeID(list.id.rawValue, &w)
      w.varint(k + 1)
      w.string(list.title)
      w.byte(list.layout == .list ? 0 : 1)
      table.writeStamp(list.infoStamp, own: own, &w)
      w.varint(Int(orderIndex[Int(list.place)]))
      w.byte(list.alive ? 1 : 0)
      table.writeStamp(list.aliveStamp, own: own, &w)
    }

    w.varint(itemTable.count)
    for i in itemOrder {
      let item = itemTable[i]
      let own = table.writeID(itemIDs[i].rawValue, &w)
      w.varint(listRank[Int(item.list)])
      w.varint(Int(orderIndex[Int(item.place)]))
      w.byte(item.alive ? 1 : 0)
      table.writeStamp(item.aliveStamp, own: own, &w)
      w.varint(itemFields[i].count)
      for f in itemFields[i] {
        w.varint(table.fieldIndex[f.name]!)
        Op.writeValue(f.value, &w)
        table.writeStamp(f.stamp, own: own, &w)
      }
    }

    w.varint(assignmentTable.count)
    for k in assignmentOrder {
      let a = assignmentTable[k]
      let own = table.writeID(a.id.rawValue, &w)
      w.varint(itemRank[Int(a.item)])
      w.varint(itemRank[Int(a.target)])
      table.writeStamp(a.stamp, own: own, &w)
      w.byte(a.removed ? 1 : 0)
    }

    var byReplica: [Int: [UInt64]] = [:]
    for id in seenOps where kept == nil { byReplica[table.replica(id.replica), default: []].append(id.counter) }
    w.varint(byReplica.count)
    for r in byReplica.keys.sorted() {
      let counters = byReplica[r]!.sorted()
      w.varint(r)
      w.varint(counters.count)
      var previous: UInt64 = 0
      for c in counters {
        w.varint(c - previous)
        previous = c
      }
    }

    let buffered = pendingOps
    w.varint(buffered.count)
    for op in buffered {
      let bytes = op.encoded()
      w.varint(bytes.count)
      w.append(bytes)
    }
    return w.bytes
  }
}

/// Replica and field-name tables used while writing a snapshot.
struct SnapshotTables {
  var replicas: [ReplicaID]
  var replicaIndex: [ReplicaID: Int] = [:]
  var fieldNames: [String]
  var fieldIndex: [String: Int] = [:]

  /// The tables of `board`'s snapshot, counting only the positions `kept` marks when given (and
  /// then no applied op ids).
  init(board: Board, kept: [Bool]?) {
    var set: Set<ReplicaID> = [board.replica]
    var lastReplica: ReplicaID? = nil
    for (k, node) in board.positions.nodes.enumerated()
    where node.parent >= 0 && node.id.replica != lastReplica && kept?[k] ?? true {
      lastReplica = node.id.replica
      set.insert(node.id.replica)
    }
    var names: Set<String> = []
    for list in board.listTable {
      set.insert(list.infoStamp.replica)
      set.insert(list.aliveStamp.replica)
    }
    for (i, item) in board.itemTable.enumerated() {
      set.insert(item.aliveStamp.replica)
      for f in board.itemFields[i] {
        set.insert(f.stamp.replica)
        names.insert(f.name)
      }
    }
    for a in board.assignmentTable { set.insert(a.stamp.replica) }
    if kept == nil { for id in board.seenOps { set.insert(id.replica) } }
    replicas = set.sorted()
    for (k, r) in replicas.enumerated() { replicaIndex[r] = k }
    fieldNames = names.sorted()
    for (k, n) in fieldNames.enumerated() { fieldIndex[n] = k }
  }

  func replica(_ r: ReplicaID) -> Int { replicaIndex[r]! }

  /// Writes an id; returns the op id it encodes when it is a generated id of a known replica.
  func writeID(_ text: String, _ w: inout ByteWriter) -> OpID? {
    if let parts = GeneratedID.parse(text), let r = replicaIndex[ReplicaID(parts.replica)] {
      w.byte(0)
      w.varint(r)
      w.varint(parts.counter)
      return OpID(replica: ReplicaID(parts.replica), counter: parts.counter)
    }
    w.byte(1)
    w.string(text)
    return nil
  }

  /// A stamp: `0` when equal to `own`, else replica + 1 then counter.
  func writeStamp(_ stamp: OpID, own: OpID?, _ w: inout ByteWriter) {
    if stamp == own {
      w.varint(0)
    } else {
      w.varint(replica(stamp.replica) + 1)
      w.varint(stamp.counter)
    }
  }
}
