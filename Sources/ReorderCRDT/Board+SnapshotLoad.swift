extension Board {
  /// Loads a snapshot made by ``encodedSnapshot()`` as replica `replica` (which may differ from the
  /// replica that wrote it). Throws ``BoardError/malformed(_:)`` for anything inconsistent.
  /// - Complexity: O(n) for n positions, items, assignments and remembered ops.
  public init(snapshot bytes: [UInt8], replica: ReplicaID) throws(BoardError) {
    guard bytes.count >= 5, Array(bytes[0..<4]) == Board.snapshotMagic else {
      throw .malformed("not a board snapshot (bad magic)")
    }
    guard bytes[4] == Board.snapshotVersion else {
      throw .malformed("unsupported snapshot version \(bytes[4]) (expected \(Board.snapshotVersion))")
    }
    var r = ByteReader(bytes, offset: 5)
    self.init(replica: replica)
    positions = PositionStore()
    lamport = try r.varint()

    var replicas: [ReplicaID] = []
    for _ in 0..<(try r.elementCount(max: 1 << 20)) { replicas.append(ReplicaID(try r.varint())) }
    func replicaAt(_ k: Int) throws(BoardError) -> ReplicaID {
      guard k < replicas.count else { throw .malformed("replica index out of range") }
      return replicas[k]
    }
    var fieldNames: [String] = []
    for _ in 0..<(try r.elementCount(max: 1 << 20)) {
      fieldNames.append(try r.string(maxBytes: BoardLimits.maxFieldNameBytes))
    }

    let sequenceCount = try r.elementCount(max: 1 << 24)
    guard sequenceCount >= 1 else { throw .malformed("a snapshot has at least the list sequence") }
    for _ in 0..<sequenceCount { try readSequence(&r, replicaAt: replicaAt) }

    func readStamp(own: OpID?) throws(BoardError) -> OpID {
      let k = try r.count(max: replicas.count)
      if k == 0 {
        guard let own, own.counter > 0, own.counter <= lamport else { throw .malformed("stamp refers to a missing id") }
        return own
      }
      let counter = try r.varint()
      guard counter > 0, counter <= lamport else { throw .malformed("a stamp is ahead of the clock") }
      return OpID(replica: replicas[k - 1], counter: counter)
    }
    func readID() throws(BoardError) -> (String, OpID?) {
      switch try r.byte() {
      case 0:
        let id = OpID(replica: try replicaAt(try r.count(max: 1 << 20)), counter: try r.varint())
        return (GeneratedID.text(id), id)
      case 1:
        let s = try r.string(maxBytes: BoardLimits.maxIDBytes)
        guard !s.isEmpty else { throw .malformed("empty id") }
        return (s, nil)
      default: throw .malformed("unknown id form")
      }
    }
    /// A place is written as its index in the sequence's full order (the sentinel is index 0).
    func readPlace(sequence: Int32) throws(BoardError) -> (node: Int32, index: Int) {
      let k = try r.varint()
      let base = Int(positions.sentinels[Int(sequence)])
      let end =
        Int(sequence) + 1 < positions.sentinels.count
        ? Int(positions.sentinels[Int(sequence) + 1]) : positions.nodes.count
      guard k >= 1, k < UInt64(end - base) else { throw .malformed("a place is outside its sequence") }
      return (Int32(base + Int(k)), Int(k))
    }

    let listCount = try r.elementCount(max: 1 << 24)
    listTable.reserveCapacity(listCount)
    for l in 0..<listCount {
      let (text, own) = try readID()
      let sequence = try r.count(max: sequenceCount - 1)
      guard sequence == l + 1 else { throw .malformed("list sequences out of order") }
      let title = try r.string(maxBytes: BoardLimits.maxStringBytes)
      let layoutByte = try r.byte()
      guard layoutByte <= 1 else { throw .malformed("unknown layout") }
      let infoStamp = try readStamp(own: own)
      let (place, placeIndex) = try readPlace(sequence: 0)
      let placeStamp = positions.nodes[Int(place)].id
      let alive = try r.byte() != 0
      let aliveStamp = try readStamp(own: own)
      let id = ListID(text)
      guard listIndex[id] == nil else { throw .malformed("duplicate list") }
      listIndex[id] = Int32(l)
      listIDs.append(id)
      listTable.append(
        ListState(
          id: id, sequence: Int32(sequence), title: title, layout: layoutByte == 0 ? .list : .grid,
          infoStamp: infoStamp, place: place, placeStamp: placeStamp, alive: alive, aliveStamp: aliveStamp))
      guard positions.setLoaded(place, index: placeIndex, owner: Int32(l), visible: alive) else {
        throw .malformed("two lists share a place")
      }
    }
    guard listCount == sequenceCount - 1 else { throw .malformed("lists and sequences disagree") }

    let itemCount = try r.elementCount(max: 1 << 28)
    itemTable.reserveCapacity(itemCount)
    itemIndex.reserveCapacity(itemCount, keys: itemIDs)
    for i in 0..<itemCount {
      let (text, own) = try readID()
      let l = try r.count(max: max(listCount - 1, 0))
      guard listCount > 0 else { throw .malformed("item without lists") }
      let (place, placeIndex) = try readPlace(sequence: Int32(l + 1))
      let placeStamp = positions.nodes[Int(place)].id
      let alive = try r.byte() != 0
      let aliveStamp = try readStamp(own: own)
      var fields: [FieldRegister] = []
      let fieldCount = try r.count(max: BoardLimits.maxFields)
      fields.reserveCapacity(fieldCount)
      for _ in 0..<fieldCount {
        let k = try r.count(max: fieldNames.count - 1)
        let value = try Op.readValue(&r)
        guard fields.last.map({ $0.name < fieldNames[k] }) ?? true else { throw .malformed("fields out of order") }
        fields.append(FieldRegister(name: fieldNames[k], value: value, stamp: try readStamp(own: own)))
      }
      let id = ItemID(text)
      guard itemNumber(id) == nil else { throw .malformed("duplicate item") }
      itemIDs.append(id)
      itemIndex.insert(id, Int32(i), keys: itemIDs)
      itemTable.append(
        ItemState(list: Int32(l), place: place, placeStamp: placeStamp, alive: alive, aliveStamp: aliveStamp))
      itemFields.append(fields)
      guard positions.setLoaded(place, index: placeIndex, owner: Int32(i), visible: alive) else {
        throw .malformed("two items share a place")
      }
    }
    positions.recount()

    let assignmentCount = try r.elementCount(max: 1 << 28)
    for k in 0..<assignmentCount {
      let (text, own) = try readID()
      let item = try r.count(max: max(itemCount - 1, 0))
      let target = try r.count(max: max(itemCount - 1, 0))
      guard itemCount > 0 else { throw .malformed("assignment without items") }
      let stamp = try readStamp(own: own)
      let removed = try r.byte() != 0
      let id = AssignmentID(text)
      guard assignmentIndex.updateValue(Int32(k), forKey: id) == nil else { throw .malformed("duplicate assignment") }
      assignmentTable.append(
        AssignmentState(id: id, item: Int32(item), target: Int32(target), stamp: stamp, removed: removed))
      assignmentsByTarget[Int32(target), default: []].append(Int32(k))
    }

    for _ in 0..<(try r.count(max: replicas.count)) {
      let replica = try replicaAt(try r.count(max: replicas.count))
      var counter: UInt64 = 0
      for _ in 0..<(try r.elementCount(max: 1 << 32)) {
        let (sum, overflow) = counter.addingReportingOverflow(try r.varint())
        guard !overflow else { throw .malformed("op counter overflow") }
        counter = sum
        guard counter > 0, counter <= lamport else { throw .malformed("an op id is ahead of the clock") }
        seenOps.insert(OpID(replica: replica, counter: counter))
      }
    }

    for _ in 0..<(try r.elementCount(max: 1 << 28)) {
      let length = try r.count(max: bytes.count)
      guard bytes.count - r.offset >= length else { throw .malformed("buffered op runs past the end") }
      let op = try Op(encoded: Array(bytes[r.offset..<(r.offset + length)]))
      r.offset += length
      guard let dependency = missingDependency(op), !isApplied(op) else {
        throw .malformed("a buffered op is not waiting for anything")
      }
      pending[dependency, default: []].append(op)
      pendingIDs.insert(op.id)
    }
    guard r.isAtEnd else { throw .malformed("trailing bytes after the snapshot") }
  }

  /// Reads one sequence: nodes in full order, then rebuilds the Fugue links and the order tree.
  private mutating func readSequence(
    _ r: inout ByteReader, replicaAt: (Int) throws(BoardError) -> ReplicaID
  ) throws(BoardError) {
    let s = positions.addSequence()
    let base = Int(positions.sentinels[Int(s)])
    let m = try r.elementCount(max: 1 << 28)
    positions.nodes.reserveCapacity(positions.nodes.count + m)
    positions.nodeLeaf.reserveCapacity(positions.nodes.count + m)
    positions.reserveIndex(positions.indexCount + m)
    // Decode straight into the node array (one bulk append, no per-node uniqueness checks).
    let start = positions.nodes.count
    let blank = PositionStore.Node(
      id: OpID(replica: ReplicaID(0), counter: 0), owner: -1, sequence: s, parent: -1, firstLeft: -1, firstRight: -1,
      next: -1, side: .left)
    positions.nodes.append(contentsOf: repeatElement(blank, count: m))
    positions.nodeLeaf.append(contentsOf: repeatElement(-1, count: m))
    let clock = lamport
    var failure: BoardError? = nil
    positions.nodes.withUnsafeMutableBufferPointer { nodes in
      var lastReplica = -1
      var replica = ReplicaID(0)
      do {
        for k in 1..<(m + 1) {
          let header = try r.varint()
          let rk = Int(header >> 3)
          if rk != lastReplica {
            replica = try replicaAt(rk)
            lastReplica = rk
          }
          let counter = try r.varint()
          guard counter > 0, counter <= clock else { throw BoardError.malformed("a position is ahead of the clock") }
          let delta: Int
          switch header & 3 {
          case 0: delta = -1
          case 1: delta = 1
          case 2:
            let d = try r.signed()
            guard d != 0, d >= Int64(-k), d <= Int64(m - k) else {
              throw BoardError.malformed("position parent out of range")
            }
            delta = Int(d)
          default: throw BoardError.malformed("unknown position form")
          }
          guard k + delta >= 0, k + delta <= m else { throw BoardError.malformed("position parent out of range") }
          let side: Side = header & 4 == 0 ? .left : .right
          guard (side == .left) == (delta > 0) else {
            throw BoardError.malformed("position on the wrong side of its parent")
          }
          let n = start + k - 1
          nodes[n].id = OpID(replica: replica, counter: counter)
          nodes[n].parent = Int32(base + k + delta)
          nodes[n].side = side
        }
      } catch let error as BoardError {
        failure = error
      } catch {
        failure = .malformed("positions")
      }
    }
    if let failure { throw failure }
    if let duplicate = positions.indexInsertAll(Int32(start)..<Int32(start + m)) {
      throw .malformed("duplicate position \(positions.nodes[Int(duplicate)].id)")
    }
    try positions.rebuildSequence(s, count: m)
  }
}

extension PositionStore {
  /// Rebuilds the Fugue child lists and the order tree of a sequence whose `m` nodes were appended
  /// in full order right after its sentinel, and checks that this order is the Fugue order.
  ///
  /// The check needs no traversal. Let `lo(x)` and `hi(x)` be the first and last index of x's
  /// subtree: `lo` comes from x's first left child (left children precede their parent, so one
  /// pass front to back), `hi` from its last right child (one pass back to front). The stored order
  /// is the Fugue order iff the root's subtree spans every node and, for every node, its children's
  /// subtrees and the node itself tile its span in order: each sibling's span ends right before the
  /// next sibling's begins, the last left child's right before the parent, and the first right
  /// child's begins right after the parent. (By induction over subtree sizes, each span then holds
  /// exactly its subtree in Fugue order, and every node is reachable from the root.)
  /// - Complexity: O(m), sequential passes only.
  mutating func rebuildSequence(_ s: Int32, count m: Int) throws(BoardError) {
    let base = Int(sentinels[Int(s)])
    // Relative indices (0 = the sentinel). `last` holds the last left child of each node during the
    // forward pass, then `hi` during the backward pass.
    var lo = [Int32](repeating: 0, count: m + 1)
    var last = [Int32](repeating: -1, count: m + 1)
    var lastRight = [Int32](repeating: -1, count: m + 1)
    var valid = true
    nodes.withUnsafeMutableBufferPointer { all in
      let nodes = UnsafeMutableBufferPointer(rebasing: all[base..<(base + m + 1)])
      lo.withUnsafeMutableBufferPointer { lo in
        last.withUnsafeMutableBufferPointer { last in
          lastRight.withUnsafeMutableBufferPointer { lastRight in
            // Forward: child lists (siblings must come in ascending id order), then lo.
            for k in 0..<(m + 1) {
              if k > 0 {
                let pk = Int(nodes[k].parent) - base
                let chain = nodes[k].side == .left ? last : lastRight
                let previous = Int(chain[pk])
                if previous >= 0 {
                  if !(nodes[previous].id < nodes[k].id) { valid = false }
                  nodes[previous].next = Int32(base + k)
                } else if nodes[k].side == .left {
                  nodes[pk].firstLeft = Int32(base + k)
                } else {
                  nodes[pk].firstRight = Int32(base + k)
                }
                chain[pk] = Int32(k)
              }
              let firstLeft = Int(nodes[k].firstLeft)
              lo[k] = firstLeft >= 0 ? lo[firstLeft - base] : Int32(k)
            }
            // Backward: hi (into `last`), and the tiling of every node's span.
            let hi = last
            for k in stride(from: m, through: 0, by: -1) {
              let r = Int(lastRight[k])
              hi[k] = r >= 0 ? hi[r] : Int32(k)
              guard k > 0 else { break }
              let pk = Int(nodes[k].parent) - base
              let next = Int(nodes[k].next)
              if next >= 0 {
                if hi[k] + 1 != lo[next - base] { valid = false }
              } else if nodes[k].side == .left {
                if Int(hi[k]) + 1 != pk { valid = false }
              }
              if nodes[k].side == .right && Int(nodes[pk].firstRight) == base + k && pk + 1 != Int(lo[k]) {
                valid = false
              }
            }
            if lo[0] != 0 || Int(hi[0]) != m { valid = false }
          }
        }
      }
    }
    guard valid else { throw .malformed("positions are not in Fugue order") }
    bulkBuild(s, first: Int32(base), count: m + 1)
  }
}
