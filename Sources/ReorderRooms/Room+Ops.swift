extension Room {
  /// A re-sent op id: the same `applied` to the sender only (now if durable and welcomed; otherwise
  /// it arrives with the broadcast or right after the welcome).
  mutating func repeatAck(seq known: UInt64, to connection: ConnectionHandle) -> [RoomAction] {
    guard let member = members[connection] else { return [] }
    counters.opsRepeated += 1
    guard member.welcomedAt != nil else {
      members[connection]?.acksAfterWelcome.append(known)
      return []
    }
    // Still pending: its broadcast will reach this member (welcomed members have welcomedAt <= durableSeq).
    if known > durableSeq { return [] }
    guard let frame = appliedFrame(seq: known) else {
      counters.reads += 1
      return [.read(RoomRead(room: name, connection: connection, after: known - 1, limit: 1))]
    }
    return [.send(connection, frame, .data)]
  }

  func checkLimits(_ intent: Intent) throws(ProtocolError) { try checkLimits(intent, on: board) }

  /// The room's limits and the server's id rules for `intent` on `board` (the room's, or a copy
  /// with earlier ops of a request made on it).
  func checkLimits(_ intent: Intent, on board: any RoomBoard) throws(ProtocolError) {
    switch intent {
    case .insert(_, _, _, _, let item):
      if let item, item.hasPrefix("_") { throw ProtocolError.invalid("item", "must not start with '_' (server ids)") }
      guard board.itemCount < limits.maxItemsPerRoom else {
        throw ProtocolError(.itemLimit, "this room has the maximum of \(limits.maxItemsPerRoom) items")
      }
    case .createList(let list, _, _, _):
      if let list, list.hasPrefix("_") { throw ProtocolError.invalid("list", "must not start with '_' (server ids)") }
      guard board.listCount < limits.maxListsPerRoom else {
        throw ProtocolError(.listLimit, "this room has the maximum of \(limits.maxListsPerRoom) lists")
      }
    default: break
    }
  }

  /// The store made everything up to `durable` durable: send the `applied` frames in seq order, and
  /// the welcomes that were waiting for them.
  public mutating func durable(upTo durable: UInt64) -> [RoomAction] {
    guard durable > durableSeq else { return [] }
    var actions: [RoomAction] = []
    var sent = 0
    for (opSeq, frame) in durability.frames {
      guard opSeq <= durable else { break }
      let recipients = members.values.compactMap { m -> ConnectionHandle? in
        guard let w = m.welcomedAt, w < opSeq else { return nil }
        return m.connection
      }
      if !recipients.isEmpty { actions.append(.broadcast(recipients, frame, .data)) }
      addRecent(seq: opSeq, frame: frame)
      durability.released(opSeq)
      sent += 1
      // Members waiting for a welcome are few and rare (they joined while ops were pending): no
      // pass over every member of a large room per op unless some wait.
      guard presence.recipients.count < members.count else { continue }
      let waiting = members.values.filter { $0.welcomedAt == nil && $0.joinSeq <= opSeq }.map(\.connection)
      for connection in waiting.sorted() { actions.append(contentsOf: sendWelcome(connection)) }
    }
    durability.dropReleased(sent)
    return actions
  }

  /// Restores an applied op while loading (already durable).
  mutating func restore(seq entrySeq: UInt64, record: OpRecord) throws {
    try board.replay(record.logged)
    seq = entrySeq
    durability.isDurable(at: entrySeq)
    remember(key: OpRecord.key(client: record.client, id: record.id), seq: entrySeq)
    addRecent(seq: entrySeq, frame: record.applied(seq: entrySeq))
    log.stamps[entrySeq] = OpStamp(actor: record.actor, at: record.at)
  }
}

extension Room {
  /// Whether enough ops were applied since the last snapshot to write one
  /// (`SnapshotSchedule.isDue`).
  var snapshotDue: Bool { snapshots.isDue(limits, seq: seq, compactEvery: log.compactEvery) }

  /// A snapshot of the board now, as an action; counts start again. The snapshot is the board as
  /// it is: the room compacts at agreed seqs only (`resolveEntry`), and snapshots are taken there
  /// (`snapshotDue`). Compacting anywhere else would drop what ops made and not yet applied (this
  /// node's appends out, other nodes' ops) may still name (docs/CLUSTER.md, "Compaction at agreed
  /// seqs").
  ///
  /// The snapshot also carries `welcome.board` at its seq (`encodedBoard()` reuses the encoding of
  /// the joins at this seq), so that the next load of the room can open it without decoding
  /// (`Room+View.swift`) where the store keeps it (one node's).
  mutating func takeSnapshot() -> RoomAction {
    let bytes = board.snapshot()
    snapshots.taken(bytes: bytes.count)
    return .snapshot(room: name, snapshot: RoomSnapshot(seq: seq, bytes: bytes, board: encodedBoard()))
  }
}
