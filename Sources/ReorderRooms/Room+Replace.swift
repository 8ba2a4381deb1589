extension Room {
  /// A room built from `content` as `PUT /api/v1/boards/{room}` creates it: a new epoch, ops
  /// 1…N made by `api` (client `server`, ids `put:<n>`, like the demo boards' `demo:<n>`), each
  /// checked like an op from a client, and counted as applied; their actor is the API and their
  /// time `at` (ms since 1970, UTC). Returns the room (its ops pending)
  /// and the log entries.
  /// - Throws: `BoardContent.Refusal` at the first op that would be rejected; nothing is kept.
  static func created(
    name: String, content: BoardContent, boards: RoomBoardFactory, limits: RoomLimits, now: Double, at: Int64
  ) throws(BoardContent.Refusal) -> (room: Room, entries: [LogEntry]) {
    var room = Room(name: name, board: boards.empty(), limits: limits, now: now)
    var entries: [LogEntry] = []
    entries.reserveCapacity(content.steps.count)
    for (index, step) in content.steps.enumerated() {
      do {
        try room.checkLimits(step.intent)
        let (logged, resolved) = try room.board.perform(step.intent, ids: GeneratedIDs(seq: room.seq + 1))
        room.seq += 1
        let id = "put:\(index + 1)"
        let record = room.record(
          id: id, client: "server", by: "api", resolved: resolved, logged: logged, seq: room.seq, actor: .api, at: at)
        room.durability.wait(seq: room.seq, frame: record.applied(seq: room.seq))
        room.remember(key: OpRecord.key(client: "server", id: id), seq: room.seq)
        room.counters.opsApplied += 1
        entries.append(LogEntry(seq: room.seq, payload: record.encoded()))
      } catch {
        throw BoardContent.Refusal(path: step.path, error: error)
      }
    }
    return (room, entries)
  }

  /// Takes over the connections of `old` (the board this one replaces): each is welcomed again,
  /// with the full new board, once this room's ops are durable (`durable(upTo:)` sends the
  /// welcomes of members waiting for their join seq). Drags in progress end with the old board.
  ///
  /// Their welcome's board is captured now, at the new board's seq: ops applied while it is being
  /// stored reach them as `applied` frames after it.
  mutating func adoptMembers(of old: Room) {
    let board = old.members.isEmpty ? nil : encodedBoard()
    for (connection, var member) in old.members {
      member.welcomedAt = nil
      member.joinSeq = seq
      member.since = nil
      member.epoch = nil
      member.capturedBoard = board
      member.acksAfterWelcome = []
      members[connection] = member
    }
    roster = old.roster
    presence.isLarge = old.presence.isLarge
    idleSince = old.idleSince
  }

  /// A snapshot of the board now (the batch a created board is stored as ends with it), counts
  /// starting again; on one node with the board JSON, as `takeSnapshot`.
  mutating func snapshotNow() -> RoomSnapshot {
    let bytes = board.snapshot()
    snapshots.taken(bytes: bytes.count)
    return RoomSnapshot(seq: seq, bytes: bytes, board: encodedBoard())
  }
}
