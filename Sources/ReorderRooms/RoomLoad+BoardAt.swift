/// What `RoomLoad.boardAt(seq:on:completion:)` answers.
public enum BoardAtSeq: Sendable, Equatable {
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
    readFromBase(atOrBefore: seq, through: seq, on: store) { [self] result in
      switch result {
      case .failure(let error): completion(.failure(error))
      case .success(let (snapshot, read)):
        let entries = read.filter { $0.seq <= seq }
        guard let answer = Self.shape(seq: seq, from: snapshot?.seq ?? 0, read: read) else {
          return withFirst(store, entries: entries) { first in
            completion(build(seq: seq, snapshot: snapshot, entries: entries, first: first))
          }
        }
        completion(.success(answer))
      }
    }
  }

  /// Reads the latest snapshot at or before `base` and the ops after it up to `top` (as many as
  /// that takes; a store may answer one more when none is wanted, which is not read then).
  private func readFromBase(
    atOrBefore base: UInt64, through top: UInt64, on store: any RoomStore,
    _ body: @escaping @Sendable (Result<(RoomSnapshot?, [LogEntry]), RoomStoreError>) -> Void
  ) {
    store.snapshot(room: room, atOrBefore: base) { [room] snapshot in
      switch snapshot {
      case .failure(let error): body(.failure(error))
      case .success(let snapshot):
        let from = snapshot?.seq ?? 0
        guard top > from else { return body(.success((snapshot, []))) }
        store.entries(room: room, after: from, limit: Int(min(top - from, UInt64(Int32.max)))) { read in
          body(read.map { (snapshot, $0) })
        }
      }
    }
  }

  /// The answer when the ops `read` after the base (`from`; in seq order, as many as `seq` needs)
  /// cannot make the board at `seq`: a gap before `seq` (trimmed ops: only a snapshot-less base at
  /// 0 meets one, op 1 being kept) or the log ends before `seq`; nil when they can.
  static func shape(seq: UInt64, from: UInt64, read: [LogEntry]) -> BoardAtSeq? {
    var reached = from
    for entry in read {
      guard entry.seq <= seq else { return .gone }  // a gap: the read jumped past `seq`
      guard entry.seq == reached + 1 else { return .gone }
      reached = entry.seq
    }
    return reached < seq ? .beyond(last: reached) : nil
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
      var load = RoomLoad(
        room: room, remembering: 0, boards: boards, limits: limits, node: node, compactEvery: compactEvery,
        resolvedOps: resolvedOps)
      load.encodesBoard = false
      let prepared = try load.prepare(history)
      return .board(seq: seq, epoch: prepared.epoch, board: prepared.boardJSON())
    }
  }
}

extension RoomLoad {
  /// Cluster mode: a page of the history older than the replica's window, rebuilt from the shared
  /// log, whose records hold only the maker's view of each op: the kept snapshot at or before the
  /// page, then the entries up to `before - 1` applied and resolved as every node resolves them
  /// (`Room(name:logHistory:…)`), with the records' actors and times. `gone` when the log no
  /// longer holds the page's ops or their base.
  public func historyPage(
    before: UInt64, limit: Int, on store: any RoomStore,
    completion: @escaping @Sendable (Result<HistoryPage, RoomStoreError>) -> Void
  ) {
    guard before > 1 else { return completion(.success(.entries([], next: nil))) }
    let top = before - 1
    let low = top > UInt64(limit) ? top - UInt64(limit) : 1  // one more than the page: is there a next?
    readFromBase(atOrBefore: low - 1, through: top, on: store) { [self] read in
      completion(
        read.flatMap { snapshot, entries in
          Result { () throws(RoomStoreError) in
            try page(snapshot: snapshot, entries: entries, low: low, top: top, limit: limit)
          }
        })
    }
  }

  private func page(snapshot: RoomSnapshot?, entries: [LogEntry], low: UInt64, top: UInt64, limit: Int)
    throws(RoomStoreError) -> HistoryPage
  {
    let from = snapshot?.seq ?? 0
    let earliest = entries.first(where: { $0.seq > 1 })?.seq ?? top + 1
    switch Self.shape(seq: top, from: from, read: entries) {
    case .gone?: return .gone(earliest: earliest)
    case .beyond(let last)?: if last < low { return .gone(earliest: earliest) }
    case .board?, nil: break
    }
    var limits = self.limits
    limits.maxCatchUpOps = entries.count + 1
    do {
      let room = try Room(
        name: room, logHistory: RoomHistory(snapshot: snapshot, remembered: [], after: entries, first: nil),
        boards: boards, limits: limits, node: node.isEmpty ? "history" : node, compactEvery: compactEvery)
      let kept: [HistoryEntry] = (max(low, from + 1)...max(low, room.seq)).compactMap { seq in
        guard seq <= room.seq, let frame = room.appliedFrame(seq: seq), let op = (try? JSONValue.parse(frame))?["op"]
        else { return nil }
        return HistoryEntry(seq: seq, op: op, stamp: room.log.stamps[seq] ?? OpStamp(actor: nil, at: nil))
      }
      return HistoryPage.read(kept: kept, before: top + 1, limit: limit)
    } catch let error as RoomStoreError {
      throw error
    } catch {
      throw .corrupt("room \(room): \(error)")
    }
  }
}
