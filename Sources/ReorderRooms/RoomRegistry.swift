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
    /// Violations (rate-limited frames, bad frames), refilled at the op rate with
    /// `RoomLimits.violationSeconds` of them saved up: when it runs dry, the connection is closed.
    var violations: TokenBucket
    var closing = false
    /// When a frame was last dropped by the frame rate limit: one `error rate_limited` per burst
    /// (a burst ends after a second without dropped frames).
    var lastLimited: Double?
  }

  let limits: RoomLimits
  let storage: any RoomStorage
  let boards: RoomBoardFactory
  let sessionPrefix: String
  var rooms: [String: Room] = [:]
  var connections: [ConnectionHandle: Connection] = [:]
  var nextSession: UInt64 = 1
  /// Open connections per room (joined or not): a room with any is never unloaded.
  var attached: [String: Int] = [:]
  /// How often rooms flush drag presence (see `PresencePacing`); a fixed 30 Hz unless set.
  public var presencePacing = PresencePacing.fixed(hz: 30)

  /// A registry over `storage`; sessions are named `<sessionPrefix><n>`.
  public init(limits: RoomLimits, storage: any RoomStorage, boards: RoomBoardFactory, sessionPrefix: String = "s") {
    self.limits = limits
    self.storage = storage
    self.boards = boards
    self.sessionPrefix = sessionPrefix
  }

  /// Loaded rooms.
  public var roomCount: Int { rooms.count }

  /// A loaded room (for tests and health).
  public func room(_ name: String) -> Room? { rooms[name] }

  /// A websocket on `/ws/<room>` opened: load the room (or refuse when the server is full).
  public func opened(_ connection: ConnectionHandle, room name: String, now: Double) -> [RoomAction] {
    var actions: [RoomAction] = []
    guard ensureLoaded(name, now: now, actions: &actions) else {
      return actions + refuseLoad(connection, name)
    }
    attached[name, default: 0] += 1
    let rate = Double(limits.maxOpsPerSecond)
    connections[connection] = Connection(
      room: name, session: nil, ops: TokenBucket(rate: rate, burst: rate * 2, now: now),
      frames: TokenBucket(rate: limits.maxFramesPerSecond, burst: limits.maxFramesPerSecond * 2, now: now),
      violations: TokenBucket(rate: rate, burst: rate * RoomLimits.violationSeconds, now: now))
    return actions
  }

  /// Loads `name` if needed; false (with the reason logged) when it cannot be.
  func ensureLoaded(_ name: String, now: Double, actions: inout [RoomAction]) -> Bool {
    if rooms[name] != nil { return true }
    guard rooms.count < limits.maxRooms else { return false }
    do {
      let room = try Room.load(name: name, storage: storage, boards: boards, limits: limits, now: now)
      rooms[name] = room
      actions.append(.log(.info, "room loaded", [("room", name), ("seq", "\(room.seq)")]))
      return true
    } catch {
      actions.append(.log(.error, "room load failed", [("room", name), ("error", "\(error)")]))
      return false
    }
  }

  /// The refusal when `ensureLoaded` failed.
  func refuseLoad(_ connection: ConnectionHandle, _ name: String) -> [RoomAction] {
    if rooms.count >= limits.maxRooms {
      return refuse(
        connection, ProtocolError(.serverFull, "the server has too many rooms open; try again later"),
        code: CloseCode.tryAgainLater, reason: "server full")
    }
    return refuse(
      connection, ProtocolError(.roomUnavailable, "the room could not be loaded; see the server log"),
      code: CloseCode.internalError, reason: "room unavailable")
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
    guard state.session != nil else { return [] }
    return rooms[state.room]?.leave(connection, now: now) ?? []
  }

  /// The store made `room`'s ops durable up to `seq`.
  public func durable(room name: String, upTo seq: UInt64) -> [RoomAction] {
    rooms[name]?.durable(upTo: seq) ?? []
  }

  /// The tick (the server asks for one when `nextTick(now:)` says): presence frames of every room
  /// due (held back for `busy` connections), and unloading idle rooms.
  public func tick(now: Double, busy: (ConnectionHandle) -> Bool = { _ in false }) -> [RoomAction] {
    var actions: [RoomAction] = []
    for name in rooms.keys {
      rooms[name]!.presence.pace(presencePacing, connections: connections.count, now: now)
      actions.append(contentsOf: rooms[name]!.flushPresence(now: now, busy: busy))
      if attached[name] == nil, rooms[name]!.isIdle(now: now) {
        actions.append(contentsOf: rooms[name]!.finalSnapshot())
        actions.append(.log(.info, "room unloaded", [("room", name), ("seq", "\(rooms[name]!.seq)")]))
        rooms[name] = nil
      }
    }
    return actions
  }

  /// Shutting down: a snapshot of every room with ops since its last one.
  public func shutdown() -> [RoomAction] {
    var actions: [RoomAction] = []
    for name in rooms.keys { actions.append(contentsOf: rooms[name]!.finalSnapshot()) }
    return actions
  }
}

extension RoomRegistry {
  /// Storage failed for `room`: its in-memory state is ahead of the disk, so close its connections
  /// (1011) and drop it; the next join reloads what is durable.
  public func fail(room name: String, reason: String) -> [RoomAction] {
    guard let room = rooms.removeValue(forKey: name) else { return [] }
    var actions: [RoomAction] = []
    for connection in room.members.keys.sorted() {
      connections[connection]?.closing = true
      actions.append(.close(connection, code: CloseCode.internalError, reason: reason))
    }
    for (connection, state) in connections where state.room == name && room.members[connection] == nil {
      connections[connection]?.closing = true
      actions.append(.close(connection, code: CloseCode.internalError, reason: reason))
    }
    actions.append(.log(.error, "room dropped", [("room", name), ("reason", reason)]))
    return actions
  }
}
