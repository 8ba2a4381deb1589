import ReorderBasics

/// A registry's place in its log (`RoomRegistry.log`).
struct LogState: Sendable {
  let node: RoomNode
  /// The next append's ticket.
  var nextTicket: UInt64 = 1
  /// Whole-board writes out, by room (`RoomRegistry.boardWriteBegan`).
  var boardWritesOut: [String: Int] = [:]
}

/// The rooms' log and presence channel, on one node (ReorderLocal's `LocalLog`, `LocalPresenceChannel`) and
/// in a cluster (Redis, `serve --redis`, where every node holds a replica of each room it has
/// members in): the rooms' seqs come from the log (see `Room+Log.swift`, docs/CLUSTER.md). The
/// registry returns `.log` and `.presence` actions and takes their answers here.
extension RoomRegistry {
  /// This registry's node.
  public var roomNode: RoomNode { log.node }

  /// Makes `room` one of the loaded rooms (made or loaded): its instance (for the ids it
  /// generates, `RoomLog.nextIDs()`) and its place in the log.
  func install(_ room: inout Room) {
    roomInstances += 1
    if room.log.node != log.node.node || room.log.compactEvery != log.node.compactEvery {
      room.log.moved(to: log.node.node, compactEvery: log.node.compactEvery)
    }
    room.log.instance = roomInstances
    room.log.writingBoard = log.boardWritesOut[room.name] != nil
  }

  /// The log follows `room` from its seq now (`.follow`): after a board was made in memory
  /// (`createBoard`), its next ops follow its last.
  public func follow(room name: String) -> [RoomAction] {
    guard let room = rooms[name] else { return [] }
    return RoomAction.follow(room: name, after: room.seq)
  }

  /// The answer to `.log(.append(append))`.
  public func appended(_ append: LogAppend, result: Result<AppendReply, LogError>, now: Double)
    -> [RoomAction]
  {
    guard let (seq, epoch) = inPlace(append.room, { ($0.seq, $0.epoch) }) else { return [] }
    var actions: [RoomAction] = []
    // Another history in the log than the one this replica applied ops of (the board was replaced,
    // or deleted: no epoch; the tail's check of the room's epoch may not have seen it yet): the room
    // reloads it (or closes), and the op is refused as one made in a history that ended.
    if case .failure(.epoch(let current)) = result, seq > 0, current != epoch, current.isEmpty || !epoch.isEmpty {
      actions = logHistoryChanged(room: append.room, epoch: current.isEmpty ? nil : current, now: now)
      guard isLoaded(append.room) else { return actions }
    }
    do {
      actions += try rooms[append.room]!.appended(ticket: append.ticket, result: result)
      return actions + advanceAPI(room: append.room)
    } catch {
      return failLog(room: append.room, reason: "shared log corrupt")
    }
  }

  /// Entries of a room's log: from tailing it (`.follow`) or from a `.readRange`. Any order, any
  /// overlap: duplicates are ignored, and a gap is read.
  public func logged(room name: String, entries: [AppendedEntry], now: Double) -> [RoomAction] {
    guard isLoaded(name) else { return [] }
    do {
      return try rooms[name]!.logged(entries) + advanceAPI(room: name)
    } catch {
      return [.logLine(.error, "shared log entry unreadable", [("room", name), ("error", "\(error)")])]
        + failLog(room: name, reason: "shared log corrupt")
    }
  }

  /// Drops a room whose shared state cannot go on (`fail`), its API requests answered first.
  func failLog(room name: String, reason: String) -> [RoomAction] {
    (rooms[name]?.failAPI(reason: reason) ?? []) + fail(room: name, reason: reason)
  }

  /// A `.readRange` failed: the gap is read again with the next entry or tick.
  public func rangeFailed(room name: String) -> [RoomAction] {
    rooms[name]?.rangeFailed()
    return []
  }

  /// A message on the room's presence channel: `node` published `message`. This node's own
  /// messages are ignored. The changes go out with the room's next presence flush (ask
  /// `nextTick(room:now:)`); joins and leaves of a small room at once.
  public func presenceReceived(room name: String, node: String, message: PresenceMessage, now: Double)
    -> [RoomAction]
  {
    guard node != log.node.node, isLoaded(name) else { return [] }
    return rooms[name]!.mergeRemote(message, now: now)
  }

  /// A message on the room's presence channel as bytes (`PresenceMessage.encoded()`); unreadable
  /// ones are ignored.
  public func presenceReceived(room name: String, node: String, payload: [UInt8], now: Double) -> [RoomAction] {
    guard node != log.node.node, isLoaded(name) else { return [] }
    guard let message = try? PresenceMessage(payload: payload) else {
      return [.logLine(.warn, "presence message unreadable", [("room", name), ("node", node)])]
    }
    return presenceReceived(room: name, node: node, message: message, now: now)
  }

  /// The room's roster as read from the shared store: its entries' values (`PresenceMessage.
  /// rosterEntry`), expired ones already left out. This node's sessions in it are ignored; other
  /// nodes' sessions not listed any more leave (a crashed node's, once they expire).
  public func roster(room name: String, entries: [[UInt8]], now: Double) -> [RoomAction] {
    guard isLoaded(name) else { return [] }
    let peers = entries.compactMap(PresenceMessage.rosterEntry).filter { $0.node != log.node.node }.map(\.peer)
    return rooms[name]!.mergeRoster(peers, now: now, grace: log.node.rosterGrace)
  }

  /// An `op`: made and appended (see `Room.performOp`).
  func performOp(_ request: OpRequest, from connection: ConnectionHandle, room name: String) -> [RoomAction] {
    guard isLoaded(name) else { return [] }
    let ticket = log.nextTicket
    log.nextTicket += 1
    return rooms[name]!.performOp(request, from: connection, ticket: ticket)
  }

  /// A `.read` of a re-sent op's `applied` failed because the storage could not serve it now (Redis
  /// unreachable, a SQLite read failing): the op is `rejected` `unavailable` (the client re-sends
  /// it later), and the connection stays, as for a failed append.
  func logReadUnavailable(_ read: RoomRead) -> [RoomAction] {
    guard let room = rooms[read.room], let client = room.members[read.connection]?.client else { return [] }
    let prefix = OpRecord.key(client: client, id: "")
    guard let key = room.opIDs.key(seq: read.after + 1, prefix: prefix) else { return [] }
    let error = ProtocolError(.unavailable, "the shared log is unavailable; re-send later")
    counters.opsRejected[ErrorCode.unavailable.rawValue, default: 0] += 1
    return [
      .send(read.connection, ServerMessage.rejected(id: String(key.dropFirst(prefix.count)), error: error), .data)
    ]
  }

  /// Work of a room's log and presence at a tick or flush: its presence changes published, a gap
  /// read again.
  func linkFlush(room name: String, now: Double) -> [RoomAction] {
    guard isLoaded(name) else { return [] }
    return rooms[name]!.publishPresence(now: now) + rooms[name]!.readGap()
  }
}
