/// Applying ops: idempotent, order-independent, with a causal buffer.
///
/// Delivery: the board does NOT assume causal delivery. An op whose dependencies are missing
/// (its parent position, its item, list or assignment) is held in a buffer keyed by the first
/// missing one, and applied as soon as that arrives (which may release further ops). Everything
/// else (LWW registers, the add-wins set, Fugue integration) is commutative, so replicas that
/// applied the same set of ops hold the same state.
extension Board {
  /// Applies a (usually remote) op. Idempotent: an op already applied, or already buffered, is
  /// ignored. Returns true when the op was applied now, false when it was a duplicate, was
  /// buffered awaiting a dependency, or is inconsistent (e.g. its parent is in another list).
  /// Applying an op may also apply buffered ops that were waiting for it.
  /// - Complexity: O(log n) for the op itself (n = positions in the sequence), plus buffered ops
  ///   it releases.
  @discardableResult
  public mutating func apply(_ op: Op) -> Bool {
    if case .move(let item, let list, let anchor) = op.action, pending.isEmpty {
      return applyMove(op, item: item, list: list, anchor: anchor)
    }
    if isApplied(op) || (!pendingIDs.isEmpty && pendingIDs.contains(op.id)) { return false }
    if let dependency = missingDependency(op) {
      pending[dependency, default: []].append(op)
      pendingIDs.insert(op.id)
      return false
    }
    guard integrate(op) else { return false }
    releasePending(after: op)
    return true
  }

  /// The hot path for a remote move when nothing is buffered: each lookup done once.
  private mutating func applyMove(_ op: Op, item: ItemID, list: ListID, anchor: Anchor) -> Bool {
    if positions.lookup(op.id) != nil { return false }
    guard let i = itemNumber(item) else { return bufferOp(op, waitingFor: .item(item)) }
    guard let l = listNumber(list) else { return bufferOp(op, waitingFor: .list(list)) }
    let p: Int32
    if let parent = anchor.parent {
      guard let n = positions.lookup(parent) else { return bufferOp(op, waitingFor: .position(parent)) }
      p = n
    } else {
      guard anchor.side == .right else { return false }
      p = positions.sentinels[Int((l + 1))]
    }
    guard positions.nodes[Int(p)].sequence == (l + 1) else { return false }
    integrateMove(i, list: l, parent: p, side: anchor.side, stamp: op.id)
    if op.id.counter > lamport { lamport = op.id.counter }
    return true
  }

  private mutating func bufferOp(_ op: Op, waitingFor dependency: Dependency) -> Bool {
    pending[dependency, default: []].append(op)
    pendingIDs.insert(op.id)
    return false
  }

  /// Creates the move's position and writes the item's place register.
  @inline(__always)
  mutating func integrateMove(_ i: Int32, list l: Int32, parent p: Int32, side: Side, stamp: OpID) {
    let (n, slot) = positions.integrateLocated(id: stamp, parent: p, side: side, owner: i)
    updatePlace(i, list: l, node: n, slot: slot, stamp: stamp)
  }

  /// True when the op has been applied on this replica.
  public func isApplied(_ op: Op) -> Bool {
    op.createsPosition ? positions.lookup(op.id) != nil : seenOps.contains(op.id)
  }

  func missingDependency(_ op: Op) -> Dependency? {
    func parent(_ anchor: Anchor) -> Dependency? {
      if let p = anchor.parent, positions.lookup(p) == nil { return .position(p) }
      return nil
    }
    func item(_ id: ItemID) -> Dependency? { itemNumber(id) == nil ? .item(id) : nil }
    func list(_ id: ListID) -> Dependency? { listIndex[id] == nil ? .list(id) : nil }
    switch op.action {
    case .insert(_, let l, let anchor, _): return list(l) ?? parent(anchor)
    case .move(let i, let l, let anchor): return item(i) ?? list(l) ?? parent(anchor)
    case .delete(let i), .restore(let i), .set(let i, _, _): return item(i)
    case .assign(_, let i, let t): return item(i) ?? item(t)
    case .unassign(let a): return assignmentIndex[a] == nil ? .assignment(a) : nil
    case .createList(_, _, _, let anchor): return parent(anchor)
    case .moveList(let l, let anchor): return list(l) ?? parent(anchor)
    case .deleteList(let l): return list(l)
    }
  }

  /// Applies buffered ops released by `op` (and, transitively, by those).
  mutating func releasePending(after op: Op) {
    guard !pending.isEmpty else { return }
    var created: [Dependency] = []
    func collect(_ op: Op) {
      if op.createsPosition { created.append(.position(op.id)) }
      switch op.action {
      case .insert(let i, _, _, _): created.append(.item(i))
      case .createList(let l, _, _, _): created.append(.list(l))
      case .assign(let a, _, _): created.append(.assignment(a))
      default: break
      }
    }
    collect(op)
    while let key = created.popLast() {
      guard let waiting = pending.removeValue(forKey: key) else { continue }
      for next in waiting {
        pendingIDs.remove(next.id)
        if isApplied(next) { continue }
        if let dependency = missingDependency(next) {
          pending[dependency, default: []].append(next)
          pendingIDs.insert(next.id)
        } else if integrate(next) {
          collect(next)
        }
      }
    }
  }

  /// The parent node of an anchor in a sequence; nil when the parent is in another sequence or the
  /// anchor asks for a left child of the root (which would precede the sentinel).
  func parentNode(_ anchor: Anchor, in sequence: Int32) -> Int32? {
    if anchor.parent == nil && anchor.side == .left { return nil }
    return positions.node(anchor.parent, in: sequence)
  }

  /// Applies an op whose dependencies are present. Returns false (changing nothing) when it is
  /// inconsistent: a parent position in another sequence, or left of the root.
  mutating func integrate(_ op: Op) -> Bool {
    let stamp = op.id
    switch op.action {
    case .insert(let item, let list, let anchor, let fields):
      let l = listNumber(list)!
      guard let p = parentNode(anchor, in: (l + 1)) else { return false }
      if let i = itemNumber(item) {
        let n = positions.integrate(id: stamp, parent: p, side: anchor.side, owner: i)
        updatePlace(i, list: l, node: n, stamp: stamp)
        updateAlive(i, true, stamp: stamp)
        for (name, value) in fields { updateField(i, name, value, stamp: stamp) }
      } else {
        let i = Int32(itemTable.count)
        let n = positions.integrate(id: stamp, parent: p, side: anchor.side, owner: i)
        let registers = fields.keys.sorted().map { FieldRegister(name: $0, value: fields[$0]!, stamp: stamp) }
        itemTable.append(ItemState(list: l, place: n, placeStamp: stamp, alive: true, aliveStamp: stamp))
        itemFields.append(registers)
        itemIDs.append(item)
        itemIndex.insert(item, i, keys: itemIDs)
        positions.setVisible(n, true)
      }
    case .move(let item, let list, let anchor):
      let l = listNumber(list)!
      guard let p = parentNode(anchor, in: (l + 1)) else { return false }
      integrateMove(itemNumber(item)!, list: l, parent: p, side: anchor.side, stamp: stamp)
    case .delete(let item):
      updateAlive(itemNumber(item)!, false, stamp: stamp)
      seenOps.insert(stamp)
    case .restore(let item):
      updateAlive(itemNumber(item)!, true, stamp: stamp)
      seenOps.insert(stamp)
    case .set(let item, let field, let value):
      updateField(itemNumber(item)!, field, value, stamp: stamp)
      seenOps.insert(stamp)
    case .assign(let assignment, let item, let target):
      integrateAssign(assignment, item: itemNumber(item)!, target: itemNumber(target)!, stamp: stamp)
      seenOps.insert(stamp)
    case .unassign(let assignment):
      assignmentTable[Int(assignmentIndex[assignment]!)].removed = true
      seenOps.insert(stamp)
    case .createList(let list, let title, let layout, let anchor):
      guard let p = parentNode(anchor, in: 0) else { return false }
      if let l = listNumber(list) {
        let n = positions.integrate(id: stamp, parent: p, side: anchor.side, owner: l)
        updateListPlace(l, node: n, stamp: stamp)
        updateListAlive(l, true, stamp: stamp)
        if stamp > listTable[Int(l)].infoStamp {
          listTable[Int(l)].title = title
          listTable[Int(l)].layout = layout
          listTable[Int(l)].infoStamp = stamp
        }
      } else {
        let l = Int32(listTable.count)
        let n = positions.integrate(id: stamp, parent: p, side: anchor.side, owner: l)
        let sequence = positions.addSequence()
        listTable.append(
          ListState(
            id: list, sequence: sequence, title: title, layout: layout, infoStamp: stamp, place: n,
            placeStamp: stamp, alive: true, aliveStamp: stamp))
        listIndex[list] = l
        listIDs.append(list)
        positions.setVisible(n, true)
      }
    case .moveList(let list, let anchor):
      guard let p = parentNode(anchor, in: 0) else { return false }
      let l = listNumber(list)!
      let n = positions.integrate(id: stamp, parent: p, side: anchor.side, owner: l)
      updateListPlace(l, node: n, stamp: stamp)
    case .deleteList(let list):
      updateListAlive(listNumber(list)!, false, stamp: stamp)
      seenOps.insert(stamp)
    }
    if stamp.counter > lamport { lamport = stamp.counter }
    return true
  }

  /// LWW write of an item's place.
  mutating func updatePlace(_ i: Int32, list l: Int32, node n: Int32, stamp: OpID) {
    updatePlace(i, list: l, node: n, slot: nil, stamp: stamp)
  }

  /// LWW write of an item's place whose node's slot in its leaf may be known.
  @inline(__always)
  mutating func updatePlace(_ i: Int32, list l: Int32, node n: Int32, slot: Int?, stamp: OpID) {
    let item = itemTable[Int(i)]
    guard stamp > item.placeStamp else { return }
    if item.alive {
      if let slot, item.list == l {
        positions.moveVisible(from: item.place, to: n, slotOfB: slot)
      } else {
        positions.setVisible(item.place, false)
        positions.setVisible(n, true)
      }
    }
    itemTable[Int(i)].list = l
    itemTable[Int(i)].place = n
    itemTable[Int(i)].placeStamp = stamp
  }

  /// LWW write of an item's alive flag.
  mutating func updateAlive(_ i: Int32, _ alive: Bool, stamp: OpID) {
    let item = itemTable[Int(i)]
    guard stamp > item.aliveStamp else { return }
    if item.alive != alive { positions.setVisible(item.place, alive) }
    itemTable[Int(i)].alive = alive
    itemTable[Int(i)].aliveStamp = stamp
  }

  /// LWW write of one field.
  mutating func updateField(_ i: Int32, _ name: String, _ value: FieldValue, stamp: OpID) {
    var fields = itemFields[Int(i)]
    if let k = fields.firstIndex(where: { $0.name >= name }), fields[k].name == name {
      guard stamp > fields[k].stamp else { return }
      fields[k].value = value
      fields[k].stamp = stamp
    } else {
      let k = fields.firstIndex(where: { $0.name > name }) ?? fields.count
      fields.insert(FieldRegister(name: name, value: value, stamp: stamp), at: k)
    }
    itemFields[Int(i)] = fields
  }

  mutating func updateListPlace(_ l: Int32, node n: Int32, stamp: OpID) {
    let list = listTable[Int(l)]
    guard stamp > list.placeStamp else { return }
    if list.alive {
      positions.setVisible(list.place, false)
      positions.setVisible(n, true)
    }
    listTable[Int(l)].place = n
    listTable[Int(l)].placeStamp = stamp
  }

  mutating func updateListAlive(_ l: Int32, _ alive: Bool, stamp: OpID) {
    let list = listTable[Int(l)]
    guard stamp > list.aliveStamp else { return }
    if list.alive != alive { positions.setVisible(list.place, alive) }
    listTable[Int(l)].alive = alive
    listTable[Int(l)].aliveStamp = stamp
  }

  /// Adds an assignment; an id seen before keeps the content of the larger stamp (ids only collide
  /// when callers choose them explicitly).
  mutating func integrateAssign(_ id: AssignmentID, item: Int32, target: Int32, stamp: OpID) {
    if let a = assignmentIndex[id] {
      let old = assignmentTable[Int(a)]
      guard stamp > old.stamp else { return }
      assignmentsByTarget[old.target]?.removeAll { $0 == a }
      assignmentTable[Int(a)].item = item
      assignmentTable[Int(a)].target = target
      assignmentTable[Int(a)].stamp = stamp
      assignmentsByTarget[target, default: []].append(a)
    } else {
      let a = Int32(assignmentTable.count)
      assignmentTable.append(AssignmentState(id: id, item: item, target: target, stamp: stamp, removed: false))
      assignmentIndex[id] = a
      assignmentsByTarget[target, default: []].append(a)
    }
  }
}
