import ReorderBasics

/// Every room of a server and every connection: decodes frames, enforces rate limits, routes to
/// rooms, loads and unloads them. A state machine: each call returns the actions to perform.
///
/// Driven from one thread (the lws service thread in the server); time is passed in, in seconds.
public final class RoomRegistry {
  /// Per-connection state.
  struct Connection {
    var room: String
    var session: String?
    var ops: TokenBucket
    var frames: TokenBucket
    /// `broadcast` messages (`--max-broadcasts-per-second`, bursts of twice that).
    var broadcasts: TokenBucket
    /// Violations (rate-limited frames, bad frames), refilled at the op rate with
    /// `RoomLimits.violationSeconds` of them saved up: when it runs dry, the connection is closed.
    var violations: TokenBucket
    var closing = false
    /// When a frame was last dropped by the frame rate limit: one `error rate_limited` per burst
    /// (a burst ends after a second without dropped frames).
    var lastLimited: Double?
    /// Frames received while its room loads (nil once it has loaded).
    var held: [(bytes: [UInt8], isBinary: Bool)]?
    /// What its token allows (nil: no tokens are checked, or no hello yet).
    var access: Access?
    /// When its token expires (`MonotonicClock` seconds, as `now`).
    var expiresAt: Double?
    /// Moves on with every token (hello, refresh): older deadlines are void.
    var generation = 0
    /// Frames and bytes received before a successful hello (see `AccessTimes`).
    var framesBeforeHello = 0
    var bytesBeforeHello = 0
    /// Whether nothing it sends changes the board (a viewer's token).
    var readOnly: Bool { access?.role == .viewer }
  }

  let limits: RoomLimits
  let boards: RoomBoardFactory
  let sessionPrefix: String
  /// The loaded rooms. A read of `rooms[name]` copies the room (every stored property retained
  /// and released): tests and reads on the hot paths go through `isLoaded` and `inPlace`.
  var rooms: [String: Room] = [:]
  /// Rooms whose `.load` is out, with the connections waiting for them in open order.
  var loading: [String: [ConnectionHandle]] = [:]
  /// Views being upgraded to full rooms (`RoomRegistry+Upgrade.swift`), with the connections whose
  /// frames wait for it.
  var upgrading: [String: [ConnectionHandle]] = [:]
  var connections: [ConnectionHandle: Connection] = [:]
  var nextSession: UInt64 = 1
  /// Open connections per room (joined or not): a room with any is never unloaded.
  var attached: [String: Int] = [:]
  /// Counts outside the loaded rooms: those of rooms since unloaded or dropped, and the registry's
  /// own (ops rejected before reaching a room). See `statistics`.
  var counters = RoomCounters()
  /// Rooms `tick` unloaded, until the caller takes them (`takeUnloaded()`) to free them elsewhere.
  var unloaded: [Room] = []
  var loadsCompleted = 0
  /// Rooms taken from loads so far: each one's number tells the ids it generates apart from those
  /// an earlier load of the same room generated (`RoomLog.instance`).
  var roomInstances: UInt64 = 0
  var loadsFailed = 0
  var messagesReceived: [String: Int] = [:]
  /// How often rooms flush drag presence (see `PresencePacing`); a fixed 30 Hz unless set.
  public var presencePacing = PresencePacing.fixed(hz: 30)
  /// The members of the rooms with a drag in progress, as the last tick counted them: what the
  /// rooms' drags fan out to together, which `presencePacing`'s budget bounds.
  var dragAudience = 0
  /// Checks `hello.token` and `refresh`; nil: the server runs without tokens (every connection
  /// edits; a token sent anyway is ignored).
  public var accessVerifier: (any AccessVerifier)?
  /// Hello timeouts and token expiries of the connections.
  var deadlines = DeadlineQueue()
  /// Tokens refused, by reason (`AccessDenial.reason`).
  var authFailures: [String: Int] = [:]
  /// This node and its appends (`RoomRegistry+Log.swift`).
  var log: LogState
  /// Wall time for the records of ops (milliseconds since 1970-01-01 UTC): what the history shows
  /// as each op's `at`. The only wall clock the rooms read; tests set a fixed one.
  public var wallClock: @Sendable () -> Int64 = WallClock.milliseconds

  /// Frames a connection may send while its room loads; they are handled in order once it has
  /// loaded. Beyond this the connection is closed (1008): a client waits for its `welcome`.
  public static let maxHeldFrames = 64

  /// A registry; sessions are named `<sessionPrefix><n>`. It reads and writes nothing itself: its
  /// storage work comes out as actions (`.load`, `.persist`, `.snapshot`, `.read`).
  /// `node` is this node's place in its log (by default a node named after `sessionPrefix` whose
  /// storage keeps resolved ops, as `InMemoryRoomStore` does; ids it generates must differ from an
  /// earlier start's, see `RoomLog.nextIDs()`).
  public init(limits: RoomLimits, boards: RoomBoardFactory, sessionPrefix: String = "s", node: RoomNode? = nil) {
    self.limits = limits
    self.boards = boards
    self.sessionPrefix = sessionPrefix
    log = LogState(node: node ?? RoomNode(node: "local-" + sessionPrefix, storedBy: InMemoryRoomStore.self))
  }

  /// Loaded rooms.
  public var roomCount: Int { rooms.count }

  /// A loaded room (for tests and health).
  public func room(_ name: String) -> Room? { rooms[name] }

  /// Whether `name` is being loaded.
  public func isLoading(_ name: String) -> Bool { loading[name] != nil }

  /// A websocket on `/ws/<room>` opened: attach it, and load the room if it is not in memory
  /// (`.load`; the connection's frames wait for `loaded(room:result:now:)`), or refuse when the
  /// server has `maxRooms` rooms loaded or loading.
  public func opened(_ connection: ConnectionHandle, room name: String, now: Double) -> [RoomAction] {
    var actions: [RoomAction] = []
    if !isLoaded(name) && loading[name] == nil {
      guard rooms.count + loading.count < limits.maxRooms else {
        return refuse(
          connection, ProtocolError(.serverFull, "the server has too many rooms open; try again later"),
          code: CloseCode.tryAgainLater, reason: "server full")
      }
      loading[name] = []
      var load = RoomLoad(
        room: name, remembering: RoomLoad.remembering(limits), boards: boards, limits: limits,
        node: log.node.node, compactEvery: log.node.compactEvery,
        resolvedOps: log.node.keepsResolvedOps)
      load.mayView = log.node.keepsResolvedOps
      actions.append(.load(load))
    }
    attached[name, default: 0] += 1
    let rate = Double(limits.maxOpsPerSecond)
    var state = Connection(
      room: name, session: nil, ops: TokenBucket(rate: rate, burst: rate * 2, now: now),
      frames: TokenBucket(rate: limits.maxFramesPerSecond, burst: limits.maxFramesPerSecond * 2, now: now),
      broadcasts: TokenBucket(
        rate: Double(limits.maxBroadcastsPerSecond), burst: Double(limits.maxBroadcastsPerSecond * 2), now: now),
      violations: TokenBucket(rate: rate, burst: rate * RoomLimits.violationSeconds, now: now))
    if loading[name] != nil {
      loading[name]!.append(connection)
      state.held = []
    } else if upgrading[name] != nil {
      upgrading[name]!.append(connection)
      state.held = []
    }
    connections[connection] = state
    deadlines.add(
      .init(time: now + AccessTimes.helloTimeout, connection: connection, kind: .helloTimeout, generation: 0))
    return actions
  }

  /// The answer to a `.load`: the room joins the loaded ones and the frames its connections sent
  /// meanwhile are handled, in order per connection (connections in open order). A failed load
  /// closes those connections (`room_unavailable`, 1011 `storage failure: <kind>`) and is logged;
  /// the next connection to the room loads it again.
  public func loaded(room name: String, result: Result<PreparedRoom, RoomStoreError>, now: Double) -> [RoomAction] {
    if let reloading = rooms[name]?.log.reloading {
      // A view's upgrade out when the history changed read the old one: the reload's answer is
      // still to come, and the frames the upgrade holds go to the reloaded room.
      if upgrading[name] != nil, case .success(let prepared) = result, prepared.epoch != reloading { return [] }
      return logReloaded(room: name, result: result, now: now) + releaseUpgrade(room: name, now: now)
    }
    if upgrading[name] != nil, let view = rooms[name], view.log.writingBoard, case .success(let prepared) = result,
      prepared.epoch != view.epoch
    {
      // The upgrade read the board a write out now stored (its answer is still on its way): the
      // room takes that board as a reload would; the write's answer then finds it current.
      rooms[name]!.log.reloading = prepared.epoch
      return logReloaded(room: name, result: result, now: now) + releaseUpgrade(room: name, now: now)
    }
    if upgrading[name] != nil { return upgraded(room: name, result: result, now: now) }
    if rooms[name]?.rebuilding == true { return rebuilt(room: name, result: result) }
    guard let waiting = loading.removeValue(forKey: name) else { return [] }
    var actions: [RoomAction] = []
    switch result {
    case .success(let prepared):
      var room = prepared.room
      room.idleSince = now
      loadsCompleted += 1
      install(&room)
      rooms[name] = room
      actions.append(
        .logLine(
          .info, "room loaded", [("room", name), ("seq", "\(room.seq)"), ("view", room.isView ? "true" : "false")]))
      actions.append(contentsOf: RoomAction.follow(room: name, after: room.seq))
      for connection in waiting {
        guard let held = connections[connection]?.held else { continue }
        connections[connection]!.held = nil
        for frame in held {
          actions.append(contentsOf: received(connection, message: frame.bytes, isBinary: frame.isBinary, now: now))
        }
      }
    case .failure(let error):
      loadsFailed += 1
      actions.append(.logLine(.error, "room load failed", [("room", name), ("error", "\(error)")]))
      for connection in waiting where connections[connection].map({ !$0.closing }) == true {
        connections[connection]!.closing = true
        connections[connection]!.held = nil
        actions.append(
          contentsOf: refuse(
            connection, ProtocolError(.roomUnavailable, "the room could not be loaded; see the server log"),
            code: CloseCode.internalError, reason: "storage failure: \(error.kind)"))
      }
    }
    return actions
  }

  /// The answer to a `.read`: the `applied` frames of the ops read go to its connection (if it is
  /// still in the room). A read the storage could not serve now (`unavailable`) refuses the op
  /// `unavailable`, retryable, and the connection stays; another failure closes the connection
  /// (1011), so that the client reconnects and re-sends.
  public func read(_ read: RoomRead, result: Result<[LogEntry], RoomStoreError>) -> [RoomAction] {
    guard let state = connections[read.connection], !state.closing, state.room == read.room,
      rooms[read.room]?.members[read.connection] != nil
    else { return [] }
    if case .failure(.unavailable) = result { return logReadUnavailable(read) }
    switch result {
    case .success(let entries):
      return entries.compactMap { entry in
        guard let frame = try? OpRecord.appliedFrame(payload: entry.payload, seq: entry.seq) else { return nil }
        return .send(read.connection, frame, .data)
      }
    case .failure(let error):
      connections[read.connection]!.closing = true
      return [
        .close(read.connection, code: CloseCode.internalError, reason: "storage failure: \(error.kind)"),
        .logLine(.error, "read failed", [("room", read.room), ("error", "\(error)")]),
      ]
    }
  }

  func refuse(_ connection: ConnectionHandle, _ error: ProtocolError, code: UInt16, reason: String)
    -> [RoomAction]
  {
    [.send(connection, ServerMessage.error(error), .data), .close(connection, code: code, reason: reason)]
  }

  /// The connection is gone.
  public func closed(_ connection: ConnectionHandle, now: Double) -> [RoomAction] {
    guard let state = connections.removeValue(forKey: connection) else { return [] }
    attached[state.room, default: 1] -= 1
    if attached[state.room] == 0 { attached[state.room] = nil }
    guard state.session != nil, let member = rooms[state.room]?.members[connection] else { return [] }
    return rooms[state.room]!.leave(connection, now: now)
      + rooms[state.room]!.linkLeft(member.peer, visible: member.visible)
  }

  /// The store made `room`'s ops durable up to `seq`.
  public func durable(room name: String, upTo seq: UInt64) -> [RoomAction] {
    guard isLoaded(name) else { return [] }
    // The API's requests answer once their ops are durable.
    return rooms[name]!.durable(upTo: seq) + advanceAPI(room: name)
  }

  /// The tick (the server asks for one when `nextTick(now:)` says): presence frames of every room
  /// due (held back for `busy` connections), and unloading idle rooms.
  public func tick(now: Double, busy: (ConnectionHandle) -> Bool = { _ in false }) -> [RoomAction] {
    var actions = dueDeadlines(now: now)
    // Over a copy of the keys: a view of `rooms` held while `rooms` changes would make the first
    // change of every tick copy the whole dictionary.
    var audience = 0
    defer { dragAudience = audience }
    for name in Array(rooms.keys) {
      rooms[name]!.presenceTicked(now: now)
      audience += rooms[name]!.pace(presencePacing, connections: connections.count, audience: dragAudience, now: now)
      actions.append(contentsOf: rooms[name]!.flushPresence(now: now, busy: busy))
      actions.append(contentsOf: linkFlush(room: name, now: now))
      if attached[name] == nil, upgrading[name] == nil, rooms[name]!.isIdle(now: now) {
        actions.append(contentsOf: rooms[name]!.finalSnapshot())
        actions.append(.logLine(.info, "room unloaded", [("room", name), ("seq", "\(rooms[name]!.seq)")]))
        counters.add(rooms[name]!.counters)
        if let room = rooms.removeValue(forKey: name) { unloaded.append(room) }
        actions.append(contentsOf: RoomAction.unfollow(room: name))
      }
    }
    return actions
  }

  /// The rooms `tick` unloaded since the last call: the caller lets go of them where freeing a
  /// large board (thousands of items and their history) does not hold up its thread.
  public func takeUnloaded() -> [Room] {
    defer { unloaded = [] }
    return unloaded
  }

  /// Shutting down: a snapshot of every room with ops since its last one.
  public func shutdown() -> [RoomAction] {
    var actions: [RoomAction] = []
    for name in rooms.keys { actions.append(contentsOf: rooms[name]!.finalSnapshot()) }
    return actions
  }
}

extension RoomRegistry {
  /// A write (records or a snapshot) of `room` failed with `error`, and the store takes none of
  /// its later writes (`PortAnswers.logWriteFailed`). A full disk does not drop the room: its ops
  /// that were not stored are rejected `storage_full`, its members stay, and a `.load` rebuilds it
  /// from what is stored (`Room+Rebuild.swift`, answered in `loaded(room:result:now:)`). Any other
  /// failure drops the room (`fail`). While the room rebuilds, failures are of writes the store
  /// refused after the first one (`RoomStore`'s rule): their ops were rejected already.
  public func writeFailed(room name: String, error: RoomStoreError) -> [RoomAction] {
    guard let room = rooms[name], !room.rebuilding else { return [] }
    guard case .full = error else { return failLog(room: name, reason: "storage failure: \(error.kind)") }
    // The API's requests end (503): their ops that were not stored are refused with the others.
    var actions = rooms[name]!.failAPI(reason: "storage failure: full")
    actions.append(contentsOf: rooms[name]!.beginRebuild())
    actions.append(.logLine(.warn, "room rebuilding", [("room", name), ("reason", "storage failure: full")]))
    actions.append(
      .load(
        RoomLoad(
          room: name, remembering: RoomLoad.remembering(limits), boards: boards, limits: limits,
          node: log.node.node, compactEvery: log.node.compactEvery, resolvedOps: log.node.keepsResolvedOps)))
    return actions
  }

  /// The answer to a rebuilding room's `.load`: the loaded room takes over the members of the old
  /// one (`Room.adoptMembers(rebuilding:)`). A failed load drops the room as a failed write does.
  func rebuilt(room name: String, result: Result<PreparedRoom, RoomStoreError>) -> [RoomAction] {
    guard let old = rooms[name] else { return [] }
    switch result {
    case .success(let prepared):
      loadsCompleted += 1
      var room = prepared.room
      install(&room)
      var actions: [RoomAction] = [.logLine(.info, "room rebuilt", [("room", name), ("seq", "\(room.seq)")])]
      actions.append(contentsOf: room.adoptMembers(rebuilding: old))
      rooms[name] = room
      actions.append(contentsOf: RoomAction.follow(room: name, after: room.seq))
      return actions
    case .failure(let error):
      loadsFailed += 1
      return [.logLine(.error, "room rebuild failed", [("room", name), ("error", "\(error)")])]
        + fail(room: name, reason: "storage failure: \(error.kind)")
    }
  }

  /// Storage failed for `room`: its in-memory state is ahead of the disk, so close its connections
  /// (1011) and drop it; the next join reloads what is durable.
  public func fail(room name: String, reason: String) -> [RoomAction] {
    guard let room = rooms.removeValue(forKey: name) else { return [] }
    counters.add(room.counters)
    var actions: [RoomAction] = []
    for connection in room.members.keys.sorted() {
      connections[connection]?.closing = true
      actions.append(.close(connection, code: CloseCode.internalError, reason: reason))
    }
    for (connection, state) in connections where state.room == name && room.members[connection] == nil {
      connections[connection]?.closing = true
      actions.append(.close(connection, code: CloseCode.internalError, reason: reason))
    }
    actions.append(.logLine(.error, "room dropped", [("room", name), ("reason", reason)]))
    actions.append(contentsOf: RoomAction.unfollow(room: name))
    return actions
  }
}

extension RoomRegistry {
  /// Whether the room `name` is loaded; reads no room.
  func isLoaded(_ name: String) -> Bool { rooms.index(forKey: name) != nil }

  /// `body` on the loaded room `name` in place (nil when it is not loaded): what a read of
  /// `rooms[name]` would copy is only borrowed.
  func inPlace<T>(_ name: String, _ body: (inout Room) throws -> T) rethrows -> T? {
    guard let index = rooms.index(forKey: name) else { return nil }
    return try body(&rooms.values[index])
  }
}
