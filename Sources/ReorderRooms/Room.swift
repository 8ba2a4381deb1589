/// One board and the connections editing it: a state machine that returns actions.
///
/// Ops apply to the board in arrival order and get the next `seq` at once; their `applied` frames
/// wait in `durability` until the store reports them durable, then go out in seq order. A member that
/// joins while ops are pending gets its `welcome` when everything up to its join seq is durable,
/// so every member sees a gap-free stream: welcome at seq W, then `applied` W+1, W+2, …
///
/// Invariants: `durableSeq <= seq`; `durability` holds exactly seqs `durableSeq+1 … seq` in order;
/// `recent` holds only durable seqs.
public struct Room: Sendable {
  /// A connection in the room.
  struct Member: Sendable {
    var connection: ConnectionHandle
    var peer: PeerInfo
    var client: String
    var since: UInt64?
    var epoch: String?
    /// The seq of its welcome; `nil` until the welcome is sent.
    var welcomedAt: UInt64?
    /// The seq it joined at, while its welcome waits for durability.
    var joinSeq: UInt64
    /// A full board captured (encoded) at join time, when the welcome had to wait.
    var capturedBoard: [UInt8]?
    /// `applied` seqs to repeat to it right after its welcome (re-sent op ids).
    var acksAfterWelcome: [UInt64] = []
    /// False for an invisible observer (left out of peers).
    var visible = true
    /// What its token allows, and when the token expires (seconds after the join), for its welcome.
    var role: Access.Role = .editor
    var expiresIn: Double?
    /// Its token's subject (nil without tokens): with `peer.name`, the actor its ops record.
    var subject: String?

    /// Who its ops are recorded as made by.
    var actor: OpActor { OpActor(sub: subject, name: peer.name) }
  }

  /// The room name (from the websocket path).
  public let name: String
  var board: any LoggedBoard
  let limits: RoomLimits
  /// Identifies this room's history: made when the room is created, stored with op 1.
  public internal(set) var epoch: String
  /// Last assigned seq.
  public internal(set) var seq: UInt64 = 0
  /// `encodedBoard()`'s encoding and the seq it is of.
  var encodedBoardCache: (seq: UInt64, bytes: [UInt8])?
  /// Its ops ordered and not yet durable, with their `applied` frames.
  var durability = DurabilityQueue()
  /// The `applied` frames of the latest durable seqs (`appliedFrame(seq:)`).
  var recent: CatchUpWindow
  /// Op key → seq of the ops it remembers (re-sent ids are acknowledged, not applied again).
  var opIDs: OpIDWindow
  var members: [ConnectionHandle: Member] = [:]
  /// The members in join order (the bounded `peers` of a welcome lists the first ones).
  var roster = Roster()
  /// All presence state: drags, pacing, what each member was sent, coalesced join/leave notices.
  var presence = Presence()
  /// Custom presence states (`presence {state}`), flushed with `presence`.
  var states = PresenceStates()
  /// What this room did (summed into `RoomRegistry.statistics`).
  var counters = RoomCounters()
  /// When it snapshots its board (`snapshotDue`).
  var snapshots = SnapshotSchedule()
  /// When the last member left (or the room was loaded), for idle unloading.
  var idleSince: Double
  /// The disk was full for one of its writes: the room is being rebuilt from what is stored
  /// (`Room+Rebuild.swift`), and until the rebuilt room replaces it, it takes no op.
  var rebuilding = false
  /// Its place in the log: appends out, entries ahead, API requests (see `Room+Log.swift`).
  var log = RoomLog(node: "", compactEvery: RoomNode.compactionInterval)
  /// Its presence shared with the other nodes following it (`Room+PresenceLink.swift`).
  var link = PresenceLink()
  /// Opened as a view of its snapshot (`Room+View.swift`): `board` is an empty stand-in, and only
  /// joins, leaves and presence notices are served until the registry has upgraded it.
  public internal(set) var isView = false

  /// An empty room with the given board.
  public init(
    name: String, board: any LoggedBoard, limits: RoomLimits, now: Double, epoch: String = Room.makeEpoch()
  ) {
    self.name = name
    self.epoch = epoch
    self.board = board
    self.limits = limits
    self.idleSince = now
    recent = CatchUpWindow(keep: limits.maxCatchUpOps)
    opIDs = OpIDWindow(limit: limits.rememberedOpIDs)
  }

  /// Last seq the store reported durable.
  public var durableSeq: UInt64 { durability.durableSeq }

  /// Number of connections in the room.
  public var memberCount: Int { members.count }

  /// The full resolved board (as in `welcome.board`); a view's is parsed from its stored JSON.
  public func boardJSON() -> JSONValue {
    if isView, let cached = encodedBoardCache, let value = try? JSONValue.parse(cached.bytes) { return value }
    return board.boardJSON()
  }

  /// `welcome.board` encoded, as of the current seq: kept until the next op, so that joins at one
  /// seq (a join storm, the first joins after a load) encode a large board once.
  mutating func encodedBoard() -> [UInt8] {
    if let cached = encodedBoardCache, cached.seq == seq { return cached.bytes }
    let bytes = board.encodedBoardJSON()
    encodedBoardCache = (seq, bytes)
    return bytes
  }

  /// Whether the room can be unloaded: nobody in it, nothing waiting to be durable, idle long enough.
  public func isIdle(now: Double) -> Bool {
    members.isEmpty && durability.isEmpty && now - idleSince >= limits.roomIdleSeconds
  }

  /// When the room may be unloaded if nobody joins it meanwhile (seconds, the registry's clock), or
  /// nil while it has members. While ops still wait to be durable it is retried a second later.
  func unloadDue(now: Double) -> Double? {
    guard members.isEmpty else { return nil }
    let due = idleSince + limits.roomIdleSeconds
    return durability.isEmpty ? due : max(due, now + 1)
  }

  /// Welcomed members, excluding `except`.
  func welcomed(except: ConnectionHandle? = nil) -> [ConnectionHandle] {
    members.values.compactMap { $0.welcomedAt != nil && $0.connection != except ? $0.connection : nil }
  }

  /// Remembers an op id → seq, forgetting the oldest beyond `rememberedOpIDs`.
  mutating func remember(key: String, seq: UInt64) { opIDs.remember(key, seq: seq) }

  /// Adds a durable `applied` frame to the catch-up window.
  mutating func addRecent(seq: UInt64, frame: [UInt8]) {
    let windowStart = recent.start
    recent.add(seq: seq, frame: frame)
    // The history's stamps are kept for the window's seqs only.
    if recent.start > windowStart { log.stamps.dropBelow(recent.start) }
  }

  /// The `applied` frame of a durable seq if it is in memory (the catch-up window: at least the
  /// latest `maxCatchUpOps` durable seqs), else nil (older ones are a `.read` from storage).
  func appliedFrame(seq: UInt64) -> [UInt8]? { recent.frame(seq: seq) }
}

extension Room {
  /// A fresh random epoch (16 hex digits).
  public static func makeEpoch() -> String {
    let n = UInt64.random(in: 1...UInt64.max)
    let hex = String(n, radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
  }

  /// The record of an op at `seq`, made by `actor` at `at` (ms since 1970, UTC): the first op of
  /// a room also carries the room's epoch.
  func record(
    id: String, client: String, by: String, resolved: JSONValue, logged: [UInt8], seq: UInt64, actor: OpActor?,
    at: Int64?
  ) -> OpRecord {
    var record = OpRecord(id: id, client: client, by: by, resolved: resolved, logged: logged, actor: actor, at: at)
    if seq == 1 { record.epoch = epoch }
    return record
  }
}
