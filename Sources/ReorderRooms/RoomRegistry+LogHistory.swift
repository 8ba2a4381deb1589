import ReorderBasics

/// Whole-board changes in cluster mode: `PUT` (create, replace) and `DELETE` write the room's
/// history in Redis in one step (the server's side), and every node that holds a replica of the
/// room learns of it from its tail (the log's `meta.epoch` is another one, or gone) or, on the node
/// that made it, at once: `logHistoryChanged(room:epoch:now:)`. A replaced board is loaded again
/// and its members welcomed again on their open connections; a deleted one closes them 4404.
extension RoomRegistry {
  /// The shared log holds `epoch` (nil: no history at all) for `room`, which this node follows. The
  /// tail has stopped delivering the room's entries; the actions always end that pause one way or
  /// another: the same history (or a room that had applied nothing, or did not know its epoch) is
  /// followed on; a deleted board closes its connections with 4404 `board deleted` and is
  /// dropped; another epoch is a replaced board: the room is loaded again (`.load`) while it keeps
  /// its members, and takes no op meanwhile (rejected `unavailable`, retryable, as are its ops
  /// still out).
  public func logHistoryChanged(room name: String, epoch: String?, now: Double) -> [RoomAction] {
    guard let room = rooms[name] else { return [] }
    // A reload is out: it reads whatever the log holds when it runs (a delete meanwhile, an empty
    // board, is handled when it is answered).
    guard room.log.reloading == nil else { return [] }
    let follow = RoomAction.log(.follow(room: name, after: room.seq))
    // A room that has applied nothing loses nothing by a reload: it reloads to welcome its members
    // with a board made in one step (the maker's node calls this at once), and follows on when
    // the log has no history either.
    if epoch == room.epoch || (room.seq == 0 && epoch == nil) { return [follow] }
    guard let epoch else { return logDeleted(name) }
    if room.epoch.isEmpty {
      // Loaded without op 1 (trimmed): the log's epoch is the one it holds.
      rooms[name]!.epoch = epoch
      return [follow]
    }
    rooms[name]!.log.reloading = epoch
    var actions = rooms[name]!.failAPI(reason: "the board was replaced")
    // Ops still out were made in the history that ended: nobody gets them (as on one node), their
    // senders hear so now (`unavailable`, retryable) rather than never; late answers are ignored.
    let inFlight = rooms[name]!.log.inFlight.byTicket
    rooms[name]!.log.inFlight = InFlightAppends()
    for (ticket, op) in inFlight.sorted(by: { $0.key < $1.key }) {
      actions.append(contentsOf: rooms[name]!.refuse(op, ticket: ticket, Room.replacingError))
    }
    let waiting = rooms[name]!.log.deferred.list.map(\.connection)
    actions.append(contentsOf: rooms[name]!.refuseDeferred(of: waiting, Room.replacingError))
    actions.append(.logLine(.info, "board replaced; reloading", [("room", name), ("epoch", epoch)]))
    actions.append(
      .load(
        RoomLoad(
          room: name, remembering: RoomLoad.remembering(limits), boards: boards, limits: limits,
          node: log.node.node, compactEvery: log.node.compactEvery,
          resolvedOps: log.node.keepsResolvedOps)))
    return actions
  }

  /// The answer to a replaced room's `.load`: the loaded room (the new board) takes over the old
  /// one's members, roster and remote peers, and each member gets a fresh `welcome` with the full
  /// board and the new epoch.
  func logReloaded(room name: String, result: Result<PreparedRoom, RoomStoreError>, now: Double) -> [RoomAction] {
    guard let old = rooms[name] else { return [] }
    switch result {
    case .failure(let error):
      loadsFailed += 1
      return [.logLine(.error, "room reload failed", [("room", name), ("error", "\(error)")])]
        + failLog(room: name, reason: "storage failure: \(error.kind)")
    case .success(let prepared):
      loadsCompleted += 1
      var room = prepared.room
      install(&room)
      // An empty board (a `PUT` of no lists) has no op 1 to carry its epoch: it is the one the log
      // held when the change was seen (a delete since then is seen by the tail's next check).
      if room.seq == 0 { room.epoch = old.log.reloading! }
      room.adoptMembers(of: old)
      room.link = old.link
      counters.add(old.counters)
      var actions: [RoomAction] = [
        .logLine(.info, "board reloaded", [("room", name), ("epoch", room.epoch), ("seq", "\(room.seq)")])
      ]
      for connection in room.members.keys.sorted() { actions.append(contentsOf: room.sendWelcome(connection)) }
      rooms[name] = room
      actions.append(contentsOf: RoomAction.follow(room: name, after: room.seq))
      return actions
    }
  }

  /// The board was deleted: the room's connections close with 4404 `board deleted`, its API
  /// requests end, this node's sessions leave its roster, and the room is dropped (a later join
  /// loads it again: an empty board with a new epoch).
  func logDeleted(_ name: String) -> [RoomAction] {
    guard var room = rooms.removeValue(forKey: name) else { return [] }
    counters.add(room.counters)
    var actions = room.failAPI(reason: "the board was deleted")
    var closed = 0
    for (connection, state) in connections.sorted(by: { $0.key < $1.key }) where state.room == name && !state.closing {
      connections[connection]!.closing = true
      actions.append(.close(connection, code: CloseCode.boardDeleted, reason: "board deleted"))
      closed += 1
    }
    for member in room.members.values.sorted(by: { $0.connection < $1.connection }) where member.visible {
      actions.append(.presence(.rosterLeave(room: name, session: member.peer.session)))
    }
    actions.append(.logLine(.info, "board deleted", [("room", name), ("closed", "\(closed)")]))
    actions.append(contentsOf: RoomAction.unfollow(room: name))
    return actions
  }

  /// A whole-board write of `room` (`BoardWrites.putBoard`, `.deleteBoard`) was sent: until it is
  /// answered (`boardWriteEnded`) the room, loaded now or later, makes no op (its members' ops are
  /// refused `unavailable`, retryable; the API's wait), so that no op of the history it may
  /// replace is ordered after it.
  public func boardWriteBegan(room name: String) {
    log.boardWritesOut[name, default: 0] += 1
    rooms[name]?.log.writingBoard = true
  }

  /// A whole-board write of `room` was answered. `changed`: it stored the room's new history,
  /// `epoch` (nil: the board was deleted), which the room here, if loaded, takes as
  /// `logHistoryChanged` does (reloaded, or closed 4404). Otherwise (the board exists, or the
  /// write failed) nothing changed and the room makes ops again once no write is out.
  public func boardWriteEnded(room name: String, changed: Bool, epoch: String?, now: Double) -> [RoomAction] {
    var actions = changed ? logHistoryChanged(room: name, epoch: epoch, now: now) : []
    let out = (log.boardWritesOut[name] ?? 1) - 1
    log.boardWritesOut[name] = out > 0 ? out : nil
    guard out <= 0, isLoaded(name) else { return actions }
    rooms[name]!.log.writingBoard = false
    actions.append(contentsOf: advanceAPI(room: name))
    return actions
  }

  /// Whether `room` is loaded and being reloaded (its history was replaced; `logHistoryChanged`).
  public func isReloading(room name: String) -> Bool { rooms[name]?.log.reloading != nil }

  /// `PUT /api/v1/boards/{room}`: the board built from `content` (a new epoch, ops 1…N by `api`,
  /// the snapshot at N), without touching any room: the server writes it through `BoardWrites` in
  /// one step, which decides whether it exists (`CreatedBoard.replaced` is false here; the store
  /// says).
  public func buildBoard(_ name: String, content: BoardContent, now: Double)
    -> Result<CreatedBoard, BoardContent.Refusal>
  {
    do {
      var (room, entries) = try Room.created(
        name: name, content: content, boards: boards, limits: limits, now: now, at: wallClock())
      return .success(Self.created(&room, entries: entries))
    } catch {
      return .failure(error)
    }
  }

  /// A board `buildBoard` built was stored: its ops count as applied on this node (the room
  /// that built them is not kept; the replicas load the stored board without applying them).
  public func builtBoardStored(_ board: CreatedBoard) {
    counters.opsApplied += board.entries.count
  }

  /// The demo boards as cluster mode stores them (`--demo --redis`): each built as on one node
  /// (ops `demo:<n>` by `server`), with its snapshot, to be written where the log has no board.
  public func buildDemoBoards(now: Double) throws -> [(room: String, board: CreatedBoard)] {
    try DemoBoards.all.map { name, intents in
      var room = Room(name: name, board: boards.empty(), limits: limits, now: now)
      var entries: [LogEntry] = []
      for (i, intent) in intents.enumerated() {
        for case .persist(_, let ops) in try room.performSystem(intent, id: "demo:\(i + 1)") {
          entries.append(contentsOf: ops)
        }
      }
      return (name, Self.created(&room, entries: entries))
    }
  }

  private static func created(_ room: inout Room, entries: [LogEntry]) -> CreatedBoard {
    let snapshot = room.snapshotNow()
    return CreatedBoard(
      epoch: room.epoch, seq: room.seq, board: room.boardJSON(), entries: entries, snapshot: snapshot,
      summary: room.summary, replaced: false)
  }
}
