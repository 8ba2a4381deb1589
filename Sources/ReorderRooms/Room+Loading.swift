extension Room {
  /// Loads a room: the latest snapshot, then every logged op after it; op ids of the ops before the
  /// snapshot (up to `rememberedOpIDs`) are read back too, so re-sends stay idempotent across restarts.
  public static func load(
    name: String, storage: any RoomStorage, boards: RoomBoardFactory, limits: RoomLimits, now: Double
  ) throws -> Room {
    var room: Room
    if let snapshot = try storage.loadSnapshot(room: name) {
      room = Room(name: name, board: try boards.restore(snapshot.bytes), limits: limits, storage: storage, now: now)
      room.seq = snapshot.seq
      room.durableSeq = snapshot.seq
      room.lastSnapshotBytes = snapshot.bytes.count
      let remembered = UInt64(limits.rememberedOpIDs)
      var after = snapshot.seq > remembered ? snapshot.seq - remembered : 0
      while after < snapshot.seq {
        let entries = try storage.entries(room: name, after: after, limit: min(1_000, Int(snapshot.seq - after)))
        guard let last = entries.last else { break }
        for entry in entries where entry.seq <= snapshot.seq {
          let record = try OpRecord(payload: entry.payload)
          room.remember(key: OpRecord.key(client: record.client, id: record.id), seq: entry.seq)
          room.addRecent(seq: entry.seq, frame: record.applied(seq: entry.seq))
        }
        after = last.seq
      }
    } else {
      room = Room(name: name, board: boards.empty(), limits: limits, storage: storage, now: now)
    }
    // The history's epoch is stored with op 1 (logs written before epochs existed get "").
    if let first = try storage.entries(room: name, after: 0, limit: 1).first {
      room.epoch = (try? OpRecord(payload: first.payload))?.epoch ?? ""
    }
    while true {
      let entries = try storage.entries(room: name, after: room.seq, limit: 1_000)
      if entries.isEmpty { break }
      for entry in entries {
        guard entry.seq == room.seq + 1 else {
          throw BoardDataError("the op log of room has a gap after seq \(room.seq)")
        }
        try room.restore(seq: entry.seq, record: try OpRecord(payload: entry.payload))
        room.opsSinceSnapshot += 1
      }
    }
    return room
  }
}
