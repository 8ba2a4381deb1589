/// Opening a room that is not in memory: an action answered later.
///
/// The registry returns `.load(RoomLoad)`; the driver asks its `RoomStore` for the room's
/// `RoomHistory`, turns it into a `PreparedRoom` with `prepare` (decoding the snapshot and replaying
/// the ops: CPU only, on any thread, so a large board is not decoded on the rooms' thread), and
/// hands the result to `RoomRegistry.loaded(room:result:now:)` on the rooms' thread.
public struct RoomLoad: Sendable {
  /// The room to load.
  public let room: String
  /// How many op ids before the snapshot to read back (`RoomLimits.rememberedOpIDs`).
  public let remembering: Int
  let boards: RoomBoardFactory
  let limits: RoomLimits
  /// This node's id (`RoomNode.node`), for the ids the loaded room generates.
  var node: String = ""
  /// The room's compaction interval (`RoomNode.compactEvery`).
  var compactEvery: UInt64 = RoomNode.compactionInterval
  /// Whether the store's records hold their resolved ops (`RoomNode.keepsResolvedOps`): the
  /// room is rebuilt with the catch-up frames stored (`Room.init(name:history:…)`); otherwise it
  /// resolves the entries after its snapshot (`Room.init(name:logHistory:…)`).
  var resolvedOps = true
  /// A websocket's first join on one node: the room may open as a view (`Room+View.swift`), from
  /// a snapshot stored with its board JSON and no op after it, without decoding anything.
  var mayView = false
  /// Whether `prepare` encodes the board for the first welcomes (an upgrade of a view has it).
  var encodesBoard = true

  /// The ops before the snapshot a load reads back: enough for the remembered op ids and for the
  /// catch-up window, so that a `since` catch-up is always served from memory.
  static func remembering(_ limits: RoomLimits) -> Int { max(limits.rememberedOpIDs, limits.maxCatchUpOps) }

  /// Builds the room from what the store returned. Any thread.
  /// - Throws: `RoomStoreError.corrupt` when the snapshot or a record cannot be read, or the log
  ///   has a gap.
  public func prepare(_ history: RoomHistory) throws(RoomStoreError) -> PreparedRoom {
    do {
      var prepared =
        resolvedOps
        ? try Room(name: room, history: history, boards: boards, limits: limits, compactEvery: compactEvery)
        : try Room(
          name: room, logHistory: history, boards: boards, limits: limits, node: node, compactEvery: compactEvery)
      if prepared.log.node != node { prepared.log.moved(to: node, compactEvery: compactEvery) }
      if encodesBoard {
        _ = prepared.encodedBoard()  // the first welcomes' board, encoded here rather than on the rooms' thread
      }
      return PreparedRoom(room: prepared)
    } catch let error as RoomStoreError {
      throw error
    } catch {
      throw .corrupt("room \(room): \(error)")
    }
  }

  /// Asks `store` for the history and prepares it on the thread the store answers on; `completion`
  /// gets the result there (post it to the rooms' thread).
  ///
  /// A load that `mayView` first asks for the history without the ops before the snapshot: if the
  /// snapshot has its board JSON and no op follows it, the room opens as a view of it; without a
  /// snapshot that history is the whole one (nothing comes before it) and the room is built from
  /// it; otherwise the history is read again with those ops and the room is built in full.
  public func run(
    on store: any RoomStore, completion: @escaping @Sendable (Result<PreparedRoom, RoomStoreError>) -> Void
  ) {
    guard mayView else {
      store.load(room: room, remembering: remembering) { [self] result in
        completion(result.flatMap { history in Result { () throws(RoomStoreError) in try prepare(history) } })
      }
      return
    }
    store.load(room: room, remembering: 0) { [self] result in
      switch result {
      case .success(let history):
        if let view = prepareView(history) {
          completion(.success(view))
        } else if history.snapshot == nil {
          completion(Result { () throws(RoomStoreError) in try prepare(history) })
        } else {
          var full = self
          full.mayView = false
          full.run(on: store, completion: completion)
        }
      case .failure(let error): completion(.failure(error))
      }
    }
  }

  /// The room as a view of `history`, or nil when it cannot be one (no snapshot, a snapshot
  /// without its board JSON, ops after it, or cluster mode).
  func prepareView(_ history: RoomHistory) -> PreparedRoom? {
    guard resolvedOps, let snapshot = history.snapshot, let board = snapshot.board, history.after.isEmpty,
      let first = history.first
    else { return nil }
    var view = Room(name: room, viewOf: snapshot, board: board, first: first, boards: boards, limits: limits)
    view.log = RoomLog(node: node, compactEvery: compactEvery)
    return PreparedRoom(room: view)
  }
}

extension RoomLoad {
  /// A load of `room` made outside a registry (tools such as `reorder export`).
  public init(room: String, boards: RoomBoardFactory, limits: RoomLimits = RoomLimits()) {
    self.init(room: room, remembering: RoomLoad.remembering(limits), boards: boards, limits: limits)
  }
}

/// A room built from storage, ready to be handed to `RoomRegistry.loaded(room:result:now:)`.
public struct PreparedRoom: Sendable {
  var room: Room
  /// The seq the room was loaded at.
  public var seq: UInt64 { room.seq }
  /// The room's history id.
  public var epoch: String { room.epoch }
  /// Its board as in `welcome.board`.
  public func boardJSON() -> JSONValue { room.boardJSON() }
}

extension Room {
  /// A room rebuilt from its history: the latest snapshot, then every logged op after it; the op
  /// ids of the remembered ops before the snapshot are read back too, so re-sends stay idempotent
  /// across restarts. Pure: no I/O.
  init(
    name: String, history: RoomHistory, boards: RoomBoardFactory, limits: RoomLimits,
    compactEvery: UInt64 = RoomNode.compactionInterval
  ) throws {
    if let snapshot = history.snapshot {
      self.init(name: name, board: try boards.restore(snapshot.bytes), limits: limits, now: 0)
      seq = snapshot.seq
      durability.isDurable(at: snapshot.seq)
      snapshots.loaded(bytes: snapshot.bytes.count)
      let ids = min(history.remembered.count + history.after.count, limits.rememberedOpIDs + 1)
      opIDs.reserveCapacity(ids)
      // Every remembered op keeps its id; only the catch-up window's get their `applied` frame
      // (encoding the frames of all remembered ops was most of a large room's load).
      let window = UInt64(limits.maxCatchUpOps)
      let windowStart = snapshot.seq > window ? snapshot.seq - window + 1 : 1
      for entry in history.remembered where entry.seq <= snapshot.seq {
        if entry.seq >= windowStart {
          let (key, frame, stamp) = try OpRecord.windowParts(payload: entry.payload, seq: entry.seq)
          remember(key: key, seq: entry.seq)
          addRecent(seq: entry.seq, frame: frame)
          log.stamps[entry.seq] = stamp
        } else {
          remember(key: try OpRecord.key(payload: entry.payload), seq: entry.seq)
        }
      }
    } else {
      self.init(name: name, board: boards.empty(), limits: limits, now: 0)
    }
    // The history's epoch is stored with op 1 (a log whose op 1 carries none gets "").
    if let first = history.first {
      epoch = (try? OpRecord(payload: first.payload))?.epoch ?? ""
    }
    for entry in history.after {
      guard entry.seq == seq + 1 else {
        throw RoomStoreError.corrupt("the op log of room \(name) has a gap after seq \(seq)")
      }
      let record = try OpRecord(payload: entry.payload)
      try restore(seq: entry.seq, record: record)
      // Compacted where the live room compacted (`RoomNode.compacts`).
      if RoomNode.compacts(after: record, seq: entry.seq, every: compactEvery) { compactBoard() }
      snapshots.opApplied()
    }
  }
}
