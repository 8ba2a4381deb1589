/// What `RoomLoad.boardAt(seq:on:completion:)` answers.
public enum BoardAtSeq: Sendable {
  /// The board right after op `seq`: the room's epoch and its board as in `welcome.board`.
  case board(seq: UInt64, epoch: String, board: JSONValue)
  /// Op `seq` is older than what is kept to rebuild it.
  case gone
  /// The room has no op `seq` yet (or no history at all).
  case beyond(last: UInt64)
}

extension RoomLoad {
  /// The board as it was right after op `seq` (`GET /api/v1/boards/{room}?at=SEQ`, the history's
  /// `base`): the latest snapshot at or before `seq`, then the ops after it up to `seq`, replayed
  /// as a load replays them (one node) or applies the shared log's entries (cluster mode). Without
  /// such a snapshot the log must reach back to op 1 without a gap. Reads on `store`, builds on the
  /// thread the store answers on; `completion` runs there.
  public func boardAt(
    seq: UInt64, on store: any RoomStore, completion: @escaping @Sendable (Result<BoardAtSeq, RoomStoreError>) -> Void
  ) {
    store.snapshot(room: room, atOrBefore: seq) { [self] snapshot in
      switch snapshot {
      case .failure(let error): completion(.failure(error))
      case .success(let snapshot):
        let from = snapshot?.seq ?? 0
        store.entries(room: room, after: from, limit: Int(min(seq - from, UInt64(Int32.max)))) { [self] entries in
          switch entries {
          case .failure(let error): completion(.failure(error))
          case .success(let entries):
            guard let answer = Self.shape(seq: seq, from: from, entries: entries) else {
              return withFirst(store, entries: entries) { first in
                completion(build(seq: seq, snapshot: snapshot, entries: entries, first: first))
              }
            }
            completion(.success(answer))
          }
        }
      }
    }
  }

  /// The answer when the ops read after the base (`from`) cannot make the board at `seq`: a gap
  /// (trimmed ops; only a snapshot-less base at 0 meets one) or the log ends before `seq`.
  static func shape(seq: UInt64, from: UInt64, entries: [LogEntry]) -> BoardAtSeq? {
    for (offset, entry) in entries.enumerated() where entry.seq != from + UInt64(offset) + 1 {
      return .gone
    }
    let last = entries.last?.seq ?? from
    if last < seq { return .beyond(last: last) }
    return nil
  }

  /// Op 1 (the epoch's record): from `entries` when it is there, else read.
  private func withFirst(
    _ store: any RoomStore, entries: [LogEntry], _ body: @escaping @Sendable (LogEntry?) -> Void
  ) {
    if let first = entries.first, first.seq == 1 { return body(first) }
    store.entries(room: room, after: 0, limit: 1) { result in body((try? result.get())?.first { $0.seq == 1 }) }
  }

  private func build(seq: UInt64, snapshot: RoomSnapshot?, entries: [LogEntry], first: LogEntry?)
    -> Result<BoardAtSeq, RoomStoreError>
  {
    Result { () throws(RoomStoreError) in
      let history = RoomHistory(snapshot: snapshot, remembered: [], after: entries, first: first)
      var load = RoomLoad(room: room, remembering: 0, boards: boards, limits: limits, node: node)
      load.encodesBoard = false
      let prepared = try load.prepare(history)
      return .board(seq: seq, epoch: prepared.epoch, board: prepared.boardJSON())
    }
  }
}
