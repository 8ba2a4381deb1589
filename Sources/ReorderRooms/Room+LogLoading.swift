extension Room {
  /// A cluster-mode room rebuilt from the shared log: the latest snapshot, then every entry after
  /// it, applied and resolved as they are when they arrive (`resolveEntry`), so the catch-up
  /// frames of a loaded room are the ones every node sent. The ids of the remembered ops before
  /// the snapshot are read back for idempotency; their frames are not kept (their records hold
  /// the maker's view of the op, not the resolved one), so a `since` before the snapshot gets a
  /// full board. Pure: no I/O.
  ///
  /// The epoch is op 1's (the Redis store hands a stand-in carrying the log's epoch when op 1 was
  /// trimmed); without `history.first` it stays empty until the first append learns it
  /// (`appended`, `EPOCH`).
  ///
  /// The snapshot is a state of the history (taken at a compaction boundary, after compacting), so
  /// the board is not compacted on load; the entries after it compact it at the boundaries they
  /// reach, as on every replica (`resolveEntry`).
  init(
    name: String, logHistory history: RoomHistory, boards: RoomBoardFactory, limits: RoomLimits, node: String,
    compactEvery: UInt64
  ) throws {
    let board = try history.snapshot.map { try boards.restore($0.bytes) } ?? boards.empty()
    self.init(name: name, board: board, limits: limits, now: 0)
    log = RoomLog(node: node, compactEvery: compactEvery)
    if let snapshot = history.snapshot {
      seq = snapshot.seq
      durability.isDurable(at: snapshot.seq)
      snapshots.loaded(bytes: snapshot.bytes.count)
      for entry in history.remembered where entry.seq <= snapshot.seq {
        remember(key: try OpRecord.key(payload: entry.payload), seq: entry.seq)
      }
      epoch = ""
    }
    if let first = history.first {
      epoch = (try? OpRecord(payload: first.payload))?.epoch ?? ""
    }
    for entry in history.after {
      guard entry.seq == seq + 1 else {
        throw RoomStoreError.corrupt("the shared log of room \(name) has a gap after seq \(seq)")
      }
      _ = try resolveEntry(seq: entry.seq, payload: entry.payload)
    }
  }
}
