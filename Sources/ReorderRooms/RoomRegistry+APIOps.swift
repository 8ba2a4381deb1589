/// What `RoomRegistry.loggedOps(room:since:limit:)` found.
public enum LoggedOps: Sendable, Equatable {
  /// The `applied` frames after the seq asked for, in seq order (empty when there are none yet).
  case ops([[UInt8]])
  /// The room keeps no frames that far back: the earliest seq it can answer.
  case gone(earliest: UInt64)
  /// The room has no history (nothing applied).
  case noBoard
}

/// The HTTP API's ops, and in cluster mode its op log (docs/CLUSTER.md, "The API in cluster mode"):
/// the room is loaded as for a member (`openForAPI`) and answers from its replica.
extension RoomRegistry {
  /// `POST /api/v1/boards/{room}/ops` on a loaded room: the ops run in order through the log
  /// (`Room+APIOps.swift`); `.apiDone(request:…)` comes with the results once the room
  /// has applied the last of them and it is durable, or `.apiFailed` when the board is replaced,
  /// deleted or dropped meanwhile.
  public func applyAPIOps(
    _ name: String, request: UInt64, ops: [(id: String, intent: Result<Intent, ProtocolError>)], now: Double
  ) -> [RoomAction] {
    guard isLoaded(name) else { preconditionFailure("applyAPIOps on a room that is not loaded") }
    rooms[name]!.log.apiJobs.append(APIOpsJob(request: request, ops: ops, at: wallClock()))
    // A room loaded for the API alone stays at least its idle time after each request.
    rooms[name]!.idleSince = max(rooms[name]!.idleSince, now)
    return advanceAPI(room: name)
  }

  /// The room's API requests moved on as far as they can.
  func advanceAPI(room name: String) -> [RoomAction] {
    guard rooms[name]?.log.apiJobs.isEmpty == false else { return [] }
    var ticket = log.nextTicket
    defer { log.nextTicket = ticket }
    return rooms[name]!.advanceAPI(nextTicket: &ticket)
  }

  /// `GET /api/v1/boards/{room}/ops?since=S&limit=N` from a loaded room: the `applied` frames of
  /// seqs S+1 … (at most `limit`) as this replica applied and resolved them, the frames every node
  /// sent for those seqs. Nil when the room is not loaded.
  public func loggedOps(room name: String, since: UInt64, limit: Int) -> LoggedOps? {
    guard let room = rooms[name] else { return nil }
    guard room.seq > 0 else { return .noBoard }
    guard since < room.seq else { return .ops([]) }
    let earliest = room.recent.isEmpty ? room.seq + 1 : room.recent.start
    guard since + 1 >= earliest else { return .gone(earliest: earliest) }
    let last = min(room.seq, since + UInt64(max(1, limit)))
    return .ops((since + 1...last).compactMap { room.appliedFrame(seq: $0) })
  }

  /// The epoch a node's tail should expect in the log's meta for `room` (see
  /// `logHistoryChanged`): nil when the room has applied nothing or does not know its epoch yet
  /// (the tail then takes whatever the log has).
  public func followEpoch(room name: String) -> String? {
    guard let room = rooms[name], room.seq > 0, !room.epoch.isEmpty else { return nil }
    return room.epoch
  }
}

/// What `RoomRegistry.loggedHistory(room:before:limit:)` found.
public enum LoggedHistory: Sendable, Equatable {
  /// The page.
  case page(HistoryPage)
  /// The room has no history (nothing applied).
  case noBoard
}

extension RoomRegistry {
  /// Who made ops `from...through` of a loaded room, as its replica applied them
  /// (`RoomLog.stamps`; distinct, `OpActor.maxListed` at most): a `board.changed`'s actors.
  public func actors(room name: String, from: UInt64, through: UInt64) -> [OpActor] {
    guard from <= through else { return [] }
    return inPlace(name) { room in
      var list: [OpActor] = []
      let stamps = room.log.stamps
      OpActor.merge((from...through).lazy.compactMap { stamps[$0]?.actor }, into: &list)
      return list
    } ?? []
  }

  /// A page of the history (`GET /api/v1/boards/{room}/history?before=B&limit=N` in cluster mode,
  /// and a member's `history` on any node) from a loaded room: the durable ops of its catch-up
  /// window as it applied and resolved them, with who made them and when (`RoomLog.stamps`),
  /// newest first; of the window `loggedOps` answers from, the part the store keeps too. A page
  /// older than that is `gone` here (read from storage, `RoomLoad.historyPage`), and the oldest
  /// page here names it as `next`. Nil when the room is not loaded.
  public func loggedHistory(room name: String, before: UInt64?, limit: Int) -> LoggedHistory? {
    guard let room = rooms[name] else { return nil }
    guard room.seq > 0 else { return .noBoard }
    // Ops ordered on one node and not yet durable are nobody's history yet (as in storage).
    let top = min(before.map { $0 > 0 ? $0 - 1 : 0 } ?? room.durableSeq, room.durableSeq)
    guard top > 0 else { return .page(.entries([], next: nil)) }
    // The window may hold up to a thousand ops more than it keeps (`CatchUpWindow`), which the
    // store may have trimmed: the page reaches back as far as the kept window only, as storage does.
    let window = UInt64(room.limits.maxCatchUpOps)
    let earliest =
      room.recent.isEmpty
      ? room.seq + 1 : max(room.recent.start, room.durableSeq >= window ? room.durableSeq - window + 1 : 1)
    guard top >= earliest else { return .page(.gone(earliest: earliest)) }
    let from = max(earliest, top >= UInt64(limit) ? top - UInt64(limit) : 1)
    let kept: [HistoryEntry] = (from...top).compactMap { seq in
      guard let frame = room.appliedFrame(seq: seq), let op = (try? JSONValue.parse(frame))?["op"] else { return nil }
      return HistoryEntry(seq: seq, op: op, stamp: room.log.stamps[seq] ?? OpStamp(actor: nil, at: nil))
    }
    let page = HistoryPage.read(kept: kept, before: top + 1, limit: limit)
    // The page reached the start of the window: older ops are rebuilt from the log (`historyPage`).
    if case .entries(let entries, nil) = page, let oldest = entries.last?.seq, oldest == earliest, oldest > 1 {
      return .page(.entries(entries, next: oldest))
    }
    return .page(page)
  }
}
