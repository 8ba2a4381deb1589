import ReorderBasics

/// The room's seqs come from its log, on one node (`LocalSequencer`) as in a cluster (Redis).
///
/// An `op` intent becomes an op made on this node's replica but not applied (`LoggedBoard.make`)
/// and an `.append` of its `OpRecord`, keyed by the op's idempotency key. Every entry of the log,
/// this node's and the others', is applied in seq order (`applyLogged`), resolved then. An entry
/// of the shared log is durable: its `applied` goes to the members at once. One the local log
/// ordered is stored by the room with its resolved op (`.persist`), and its `applied` waits in
/// `durability` until durable (`durable(upTo:)`).
extension Room {
  /// A member's `op`: a re-sent id the room knows is acknowledged again; otherwise the op is made
  /// and appended (`ticket` names the append's answer).
  mutating func performOp(_ request: OpRequest, from connection: ConnectionHandle, ticket: UInt64) -> [RoomAction] {
    guard let member = members[connection] else { return [] }
    let key = OpRecord.key(client: member.client, id: request.id)
    if let known = opIDs[key] { return repeatAck(seq: known, to: connection) }
    // A re-send while the first append is out (the client reconnected): it waits for that
    // append's answer too (its `applied` reaches every member; a failure is told to both).
    if let ticket = log.inFlight.ticket(forKey: key) {
      counters.opsRepeated += 1
      if !log.inFlight[ticket]!.connections.contains(connection) {
        log.inFlight[ticket]!.connections.append(connection)
      }
      return []
    }
    if log.reloading != nil || log.writingBoard {
      counters.opsRejected[ErrorCode.unavailable.rawValue, default: 0] += 1
      return [.send(connection, ServerMessage.rejected(id: request.id, error: Room.replacingError), .data)]
    }
    if rebuilding { return refuseWhileRebuilding(request.id, to: connection) }
    let deferral = RoomLog.Deferred(connection: connection, request: request, key: key, ticket: ticket)
    // An append out that may still be refused `stale` would be made again after this op: this one
    // waits for its answer, so each client's ops reach the log in the order sent.
    if log.deferred.waits(connection) || log.inFlight.mayBeStale(at: seq) {
      if !log.deferred.contains(key: key) { log.deferred.append(deferral) }
      return []
    }
    do {
      try checkLimits(request.intent)
      let record = try makeRecord(
        request.intent, id: request.id, client: member.client, by: member.peer.session, actor: member.actor,
        at: request.at)
      log.inFlight[ticket] = RoomLog.InFlight(
        connections: [connection], request: request.id, key: key, record: record, creates: seq == 0,
        remake: request, until: log.boundary(after: seq))
      return [.log(.append(logAppend(ticket: ticket)))]
    } catch {
      // On one node an op is checked after every op before it applied; here those of this node
      // may still be out, and this one may name what they make: it waits for them.
      if Room.waitsForEarlierOps(error.code) && log.hasOwnOpsOut {
        log.deferred.append(deferral)
        return []
      }
      counters.opsRejected[error.code.rawValue, default: 0] += 1
      return [.send(connection, ServerMessage.rejected(id: request.id, error: error), .data)]
    }
  }

  /// The refusals an earlier op of this node may still lift: what it names does not exist yet.
  static func waitsForEarlierOps(_ code: ErrorCode) -> Bool {
    [.unknownItem, .unknownList, .unknownAssignment, .invalidAnchor].contains(code)
  }

  /// Makes the ops that waited for this node's ops before them, in arrival order (each waits
  /// again while what it needs is still out; one refused `stale` until the room applied its
  /// boundary); called after every append answer and log entry.
  mutating func retryDeferred() -> [RoomAction] {
    guard !log.deferred.isEmpty else { return [] }
    // While an append out will be refused `stale`, every waiting op would wait again: no pass
    // over them (thousands while a node is overloaded) for each answer.
    guard !log.inFlight.mayBeStale(at: seq) else { return [] }
    let waiting = log.deferred.takeAll()
    return waiting.flatMap { op -> [RoomAction] in
      if op.after > seq {
        log.deferred.append(op)
        return []
      }
      return performOp(op.request, from: op.connection, ticket: op.ticket)
    }
  }

  /// The log refused an op out (`stale`): a compaction boundary lies between the state it was
  /// made on and its seq. It is made again from its intent once the room has applied `boundary`
  /// (on the compacted board) and appended under the same key: its client sees only a later
  /// `applied`. It goes before the ops of its connections that wait and were sent after it
  /// (tickets number a registry's ops in arrival order), so each client's ops keep their order.
  mutating func remake(_ op: RoomLog.InFlight, ticket: UInt64, after boundary: UInt64) -> [RoomAction] {
    if op.api {
      apiStale(ticket: ticket, after: boundary)
      return []
    }
    guard let request = op.remake, let connection = op.connections.first(where: { members[$0] != nil }) else {
      return []
    }
    let retry = RoomLog.Deferred(
      connection: connection, request: request, key: op.key, ticket: ticket, after: boundary)
    let first =
      log.deferred.list.firstIndex { op.connections.contains($0.connection) && $0.ticket > ticket }
      ?? log.deferred.list.endIndex
    log.deferred.insert(retry, at: first)
    return []
  }

  /// Refuses the ops waiting behind a refused one of the same connections with its (retryable)
  /// error, so that their client re-sends them after it, in order.
  mutating func refuseDeferred(of connections: [ConnectionHandle], _ error: ProtocolError) -> [RoomAction] {
    guard !log.deferred.isEmpty else { return [] }
    var actions: [RoomAction] = []
    log.deferred.removeAll { waiting in
      guard connections.contains(waiting.connection) else { return false }
      counters.opsRejected[error.code.rawValue, default: 0] += 1
      if members[waiting.connection] != nil {
        actions.append(.send(waiting.connection, ServerMessage.rejected(id: waiting.request.id, error: error), .data))
      }
      return true
    }
    return actions
  }

  /// What an op whose history is being replaced gets: retry once the new board arrives.
  static let replacingError = ProtocolError(.unavailable, "the board is being replaced; re-send later")

  /// Makes `intent` into the record of an op on this replica, not applied (`LoggedBoard.make`,
  /// with ids of this node's own).
  mutating func makeRecord(
    _ intent: Intent, id: String, client: String, by: String, actor: OpActor, at: Int64
  ) throws(ProtocolError) -> OpRecord {
    var board = takeBoard()
    defer { self.board = board }
    return try makeRecord(intent, id: id, client: client, by: by, actor: actor, at: at, on: &board)
  }

  /// `makeRecord` on `board`: the room's, or a copy with earlier ops of a request made on it
  /// (`Room+APIOps.swift`). The op is made on the room's state `seq` (`OpRecord.madeAt`).
  mutating func makeRecord(
    _ intent: Intent, id: String, client: String, by: String, actor: OpActor, at: Int64,
    on board: inout any LoggedBoard
  ) throws(ProtocolError) -> OpRecord {
    let ids = log.nextIDs()
    let logged = try board.make(intent, ids: ids)
    var record = OpRecord(id: id, client: client, by: by, resolved: .null, logged: logged, actor: actor, at: at)
    // What the maker sees; every node resolves the op again when it applies it (see `applyEntry`).
    record.resolved = .object([("kind", .string(intent.kind))])
    // Only an op made at seq 0 can become op 1, which carries the room's epoch.
    if seq == 0 { record.epoch = epoch }
    record.madeAt = seq
    return record
  }

  /// The `.append` of the op in flight under `ticket`.
  func logAppend(ticket: UInt64) -> LogAppend {
    let op = log.inFlight[ticket]!
    return LogAppend(
      room: name, epoch: epoch, key: Array(op.key.utf8), node: log.node, record: op.record,
      ticket: ticket, creates: op.creates, until: op.until)
  }

  /// The answer to an append. An epoch mismatch after ops were applied (another history) reaches
  /// it only once the room is reloading (`RoomRegistry.appended` starts that).
  mutating func appended(ticket: UInt64, result: Result<AppendReply, LogError>) throws -> [RoomAction] {
    let actions = try answerAppend(ticket: ticket, result: result)
    return actions + retryDeferred()
  }

  /// `appended` before the waiting ops are made again.
  private mutating func answerAppend(ticket: UInt64, result: Result<AppendReply, LogError>) throws
    -> [RoomAction]
  {
    guard let op = log.inFlight.removeValue(forKey: ticket) else { return [] }
    switch result {
    case .success(.applied(let at)):
      // This node's op is in the log: apply it now if it is next, else when the log gets there.
      if op.api { apiAnswered(ticket: ticket, seq: at) }
      guard at > seq else { return [] }
      guard at == seq + 1 else {
        log.ahead[at] = op.payload
        return []
      }
      // The record in memory is the entry's (no need to read back its bytes).
      var actions = try applyEntry(seq: at, record: op.record)
      actions.append(contentsOf: try applyWaiting())
      return actions
    case .success(.ordered(let at)):
      // The local log: the op is next, and this room stores it (`LocalSequencer`).
      if op.api { apiAnswered(ticket: ticket, seq: at) }
      precondition(at == seq + 1, "the local log orders a room's ops after the ones it applied")
      return try applyEntry(seq: at, record: op.record, durable: false)
    case .success(.known(let at)):
      // Another node (or an earlier connection) appended this op id: its `applied` is the log's.
      remember(key: op.key, seq: at)
      if op.api { apiAnswered(ticket: ticket, seq: at) }
      return op.connections.flatMap { repeatAck(seq: at, to: $0) }
    case .failure(.unavailable(let why)):
      let error = ProtocolError(.unavailable, "the shared log is unavailable; re-send later")
      return [.logLine(.warn, "append failed", [("room", name), ("error", why)])] + refuse(op, ticket: ticket, error)
    case .failure(.stale(let boundary)) where log.reloading == nil:
      return remake(op, ticket: ticket, after: boundary)
    case .failure(.stale):
      return refuse(op, ticket: ticket, Room.replacingError)
    case .failure(.epoch) where log.reloading != nil:
      // The history it was made in is being replaced: nobody gets it; the client re-sends.
      return refuse(op, ticket: ticket, Room.replacingError)
    case .failure(.epoch(let current)):
      // Made with an epoch the room has since learned, or nothing applied yet (the room was
      // created meanwhile by another node), or a load found no op 1 to read the epoch from: take
      // the log's epoch and append again.
      guard !current.isEmpty, current == epoch || seq == 0 || epoch.isEmpty else {
        return refuse(op, ticket: ticket, Room.replacingError)
      }
      epoch = current
      var retry = op
      retry.record.epoch = current
      log.inFlight[ticket] = retry
      return [.log(.append(logAppend(ticket: ticket)))]
    }
  }

  /// An op in flight that the log did not take: `rejected` to its connections, or the end of its
  /// API request.
  mutating func refuse(_ op: RoomLog.InFlight, ticket: UInt64, _ error: ProtocolError) -> [RoomAction] {
    counters.opsRejected[error.code.rawValue, default: 0] += 1
    if op.api { apiRefused(ticket: ticket, error) }
    var actions: [RoomAction] = []
    for connection in op.connections where members[connection] != nil {
      actions.append(.send(connection, ServerMessage.rejected(id: op.request, error: error), .data))
    }
    return actions + refuseDeferred(of: op.connections, error)
  }

  /// Entries of the log (from the stream or a read-range), in any order: those next are applied,
  /// in seq order; duplicates are ignored; entries after a gap wait in `ahead` and the gap is read
  /// (`.readRange`) unless a read for it is out.
  /// - Throws: when an entry cannot be read or applied (the log is corrupt).
  mutating func logged(_ entries: [AppendedEntry]) throws -> [RoomAction] {
    // A room being reloaded holds a replaced history: what the log holds now is another one's.
    guard log.reloading == nil else { return [] }
    var actions: [RoomAction] = []
    for entry in entries.sorted(by: { $0.seq < $1.seq }) where entry.seq > seq {
      guard entry.seq == seq + 1 else {
        log.ahead[entry.seq] = entry.payload
        continue
      }
      if let record = appendedRecord(entry) {
        actions.append(contentsOf: try applyEntry(seq: entry.seq, record: record))
      } else {
        actions.append(contentsOf: try applyEntry(seq: entry.seq, payload: entry.payload))
      }
    }
    actions.append(contentsOf: try applyWaiting())
    actions.append(contentsOf: readGap())
    actions.append(contentsOf: retryDeferred())
    return actions
  }

  /// The record of this node's append out that `entry` is (same key, same bytes), so that the
  /// entry is applied without reading its bytes back; nil for any other entry.
  func appendedRecord(_ entry: AppendedEntry) -> OpRecord? {
    guard !log.inFlight.isEmpty,
      let ticket = log.inFlight.ticket(forKey: String(decoding: entry.key, as: UTF8.self)),
      let op = log.inFlight[ticket], op.payload == entry.payload
    else { return nil }
    return op.record
  }

  /// A read-range failed: the gap is read again when the next entry or tick comes.
  mutating func rangeFailed() {
    log.readingThrough = 0
  }

  /// A read of the gap before the first entry in `ahead`, if there is one and none is out.
  mutating func readGap() -> [RoomAction] {
    guard let first = log.ahead.keys.min(), first > seq + 1, log.readingThrough <= seq else {
      return []
    }
    self.log.readingThrough = first - 1
    return [.log(.readRange(room: name, after: seq, through: first - 1))]
  }

  /// Applies the entries waiting in `ahead` that follow the room's seq, each resolved on this
  /// board and sent to the welcomed members as `applied`.
  mutating func applyWaiting() throws -> [RoomAction] {
    var actions: [RoomAction] = []
    while let waiting = log.ahead[seq + 1] {
      actions.append(contentsOf: try applyEntry(seq: seq + 1, payload: waiting))
    }
    if log.readingThrough <= seq { log.readingThrough = 0 }
    return actions
  }

  /// Applies the entry at `seq + 1` and sends its `applied` to the welcomed members.
  mutating func applyEntry(seq entrySeq: UInt64, payload: [UInt8]) throws -> [RoomAction] {
    try applyEntry(seq: entrySeq, record: try OpRecord(payload: payload))
  }

  /// `applyEntry` of an entry already read (or made here). An entry of the shared log is durable:
  /// its `applied` goes to the welcomed members at once. One the local log ordered is not
  /// (`durable` false): its resolved record is stored (`.persist`), and its `applied` waits in
  /// `durability` for `durable(upTo:)`.
  mutating func applyEntry(seq entrySeq: UInt64, record: OpRecord, durable: Bool = true) throws -> [RoomAction] {
    let frame = try resolveEntry(seq: entrySeq, record: record, durable: durable)
    var actions: [RoomAction] = []
    if durable {
      let recipients = welcomed()
      if !recipients.isEmpty { actions.append(.broadcast(recipients, frame.applied, .data)) }
    } else {
      durability.wait(seq: entrySeq, frame: frame.applied)
      actions.append(.persist(room: name, ops: [LogEntry(seq: entrySeq, payload: frame.stored.encoded())]))
    }
    if snapshotDue { actions.append(takeSnapshot()) }
    return actions
  }

  /// Applies the entry at `seq + 1`: the room moves to its seq, remembers its op id and keeps its
  /// `applied` frame (returned) for catch-ups.
  mutating func resolveEntry(seq entrySeq: UInt64, payload: [UInt8]) throws -> [UInt8] {
    try resolveEntry(seq: entrySeq, record: try OpRecord(payload: payload), durable: true).applied
  }

  /// `resolveEntry` of an entry already read (or made here); also returns the record with its
  /// resolved op (what one node stores). A durable entry's frame joins the catch-up window now,
  /// another's once durable (`durable(upTo:)`).
  mutating func resolveEntry(seq entrySeq: UInt64, record: OpRecord, durable: Bool) throws -> (
    applied: [UInt8], stored: OpRecord
  ) {
    precondition(entrySeq == seq + 1, "log entries apply in seq order")
    // The same entry may wait in `ahead` (it came twice, once after a gap).
    log.ahead[entrySeq] = nil
    let resolved = try applyLogged(record.logged)
    // The API's requests here answer with the resolved op: kept while one runs.
    if record.client == Room.apiClient, log.apiJobs.isEmpty == false { log.apiResolved[entrySeq] = resolved }
    // Every replica compacts here, so the ops made after it (on the compacted board: the log takes
    // none made before it, `LogAppend.until`) apply on the same tree everywhere.
    if log.compactsAfter(record, seq: entrySeq) { compactBoard() }
    // Op 1 carries the history's epoch: a room made empty on this node takes it.
    if entrySeq == 1, let first = record.epoch { epoch = first }
    seq = entrySeq
    let frame = ServerMessage.applied(seq: entrySeq, id: record.id, by: record.by, op: resolved)
    remember(key: OpRecord.key(client: record.client, id: record.id), seq: entrySeq)
    log.stamps[entrySeq] = OpStamp(actor: record.actor, at: record.at)
    if durable {
      durability.isDurable(at: entrySeq)
      addRecent(seq: entrySeq, frame: frame)
    }
    snapshots.opApplied()
    counters.opsApplied += 1
    var stored = record
    stored.resolved = resolved
    return (frame, stored)
  }

  /// `RoomBoard.compact()` on the room's board, changed in place.
  mutating func compactBoard() {
    var board = takeBoard()
    defer { self.board = board }
    board.compact()
  }

  /// `LoggedBoard.applyLogged` on the room's board, changed in place.
  mutating func applyLogged(_ logged: [UInt8]) throws -> JSONValue {
    var board = takeBoard()
    defer { self.board = board }
    return try board.applyLogged(logged)
  }

  /// The board, leaving a placeholder, so that changing it does not copy its storage.
  mutating func takeBoard() -> any LoggedBoard {
    let board = self.board
    self.board = VacantBoard()
    return board
  }
}
