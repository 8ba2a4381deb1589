/// A room's place in its log (`Room.log`): its appends in flight, log entries that came before
/// the ones they follow, ops waiting to be made, the API's requests.
///
/// Invariants: every seq in `ahead` is above the room's `seq` + 1; `readingThrough` is 0 or above
/// the room's `seq`.
struct RoomLog: Sendable {
  /// An op appended and not yet answered.
  struct InFlight: Sendable {
    /// Who sent it: its first connection, and later ones of the same client that re-sent it.
    var connections: [ConnectionHandle]
    var request: String
    var key: String
    /// The op.
    var record: OpRecord
    /// Its bytes, the log entry's when it is appended.
    var payload: [UInt8] { record.encoded() }
    /// Whether the HTTP API made it (the head of `apiJobs` waits for it).
    var api = false
    /// Whether it was made at seq 0 (`LogAppend.creates`).
    var creates = true
    /// The member's request, to make the op again when the log refuses it `stale`; nil for the
    /// API's ops (their job keeps the intent).
    var remake: OpRequest? = nil
    /// The highest seq the op may get (`LogAppend.until`).
    var until: UInt64 = 0

    init(
      connections: [ConnectionHandle], request: String, key: String, record: OpRecord, api: Bool = false,
      creates: Bool = true, remake: OpRequest? = nil, until: UInt64 = 0
    ) {
      self.connections = connections
      self.request = request
      self.key = key
      self.record = record
      self.api = api
      self.creates = creates
      self.remake = remake
      self.until = until
    }
  }

  /// An op that names what an op of this node still out (in flight, or answered and not yet
  /// applied) makes: it is made once the ones before it are applied (`Room.retryDeferred`).
  struct Deferred: Sendable {
    var connection: ConnectionHandle
    var request: OpRequest
    var key: String
    var ticket: UInt64
    /// Made again only once the room has applied this seq (a compaction boundary the log refused
    /// the op's first making across, `stale`); 0: whenever it is retried.
    var after: UInt64 = 0
  }

  /// This node (`RoomNode.node`).
  let node: String
  /// A short tag of `node` for the ids this node generates (`GeneratedIDs`): ids made here never
  /// equal ids made on another node, or by an earlier start of this one.
  let idTag: String
  var inFlight = InFlightAppends()
  /// Ops waiting for this node's ops before them, in arrival order. A connection with one waiting
  /// has all its later ops wait behind it, so each client's ops are made in the order sent.
  var deferred = DeferredOps()
  /// Whether ops of this node are still to be applied here: made ops wait behind them (an op the
  /// log refused `stale` is still out: it waits to be made again).
  var hasOwnOpsOut: Bool { !inFlight.isEmpty || !ahead.isEmpty || deferred.hasRemakes }
  /// The room's compaction interval (`RoomNode.compactEvery`), the same on every node.
  let compactEvery: UInt64
  /// Entries beyond the next seq, by seq: this node's ops answered before the log reached them,
  /// and entries after a gap.
  var ahead: [UInt64: [UInt8]] = [:]
  /// The last seq of the read-range out to fill a gap (0: none out).
  var readingThrough: UInt64 = 0
  /// Ids generated so far by this instance of the room (`nextIDs`).
  var generated: UInt64 = 0
  /// Which of this process' loads of the room this is (set by the registry when it takes the
  /// loaded room; `RoomRegistry.roomInstances`).
  var instance: UInt64 = 0
  /// The HTTP API's requests of ops, in arrival order; their ops run one at a time
  /// (`Room+APIOps.swift`).
  var apiJobs: [APIOpsJob] = []
  /// The resolved ops of the API's ops applied while a request runs, by seq, for its results
  /// (emptied when no request is left).
  var apiResolved: [UInt64: JSONValue] = [:]
  /// The room's history was replaced by another epoch (this one), and the room is being loaded
  /// again: it takes no op and applies no entry until the loaded room takes its place.
  var reloading: String?
  /// A whole-board write of the room is out (`RoomRegistry.boardWriteBegan`): the room makes no
  /// op until it is answered, so that no op of the history it may replace is ordered after it.
  var writingBoard = false
  /// Who made each op of the catch-up window and when (`OpRecord.actor`, `at`), by seq, for the
  /// history (`RoomRegistry.loggedHistory`): the window's frames hold only the resolved ops. Seqs
  /// below the window's start are dropped as it moves on.
  var stamps = StampWindow()

  /// A fresh place in the log of `node` (a room built before it knew its node: loaded, or made
  /// elsewhere); the stamps of the ops it holds stay, since its history is the same.
  mutating func moved(to node: String, compactEvery: UInt64) {
    let stamps = self.stamps
    self = RoomLog(node: node, compactEvery: compactEvery)
    self.stamps = stamps
  }

  init(node: String, compactEvery: UInt64) {
    self.node = node
    self.compactEvery = compactEvery
    idTag = RoomLog.tag(node)
  }

  /// The first compaction boundary after seq `made`: the highest seq an op made on the state at
  /// `made` may get (`LogAppend.until`).
  func boundary(after made: UInt64) -> UInt64 { (made / compactEvery + 1) * compactEvery }

  /// Whether a replica compacts its board right after applying `record` at `seq`
  /// (`RoomNode.compacts(after:seq:every:)`).
  func compactsAfter(_ record: OpRecord, seq: UInt64) -> Bool {
    RoomNode.compacts(after: record, seq: seq, every: compactEvery)
  }

  /// The ids for the next op this node makes (there is no seq yet to name them after):
  /// `_i<tag>.<instance>.<n>`, so that a room loaded again in the same process (its `generated`
  /// back at 0) makes ids of its own.
  mutating func nextIDs() -> GeneratedIDs {
    generated += 1
    return GeneratedIDs(tag: idTag, load: instance, count: generated)
  }

  /// 64-bit FNV-1a of the node id, in base 36.
  static func tag(_ node: String) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in node.utf8 {
      hash ^= UInt64(byte)
      hash = hash &* 0x0000_0100_0000_01b3
    }
    return String(hash, radix: 36)
  }
}

/// A board placeholder, held by a room only while its real board is being changed in place (so
/// that the change does not copy the board's storage).
struct VacantBoard: LoggedBoard {
  mutating func perform(_ intent: Intent, ids: GeneratedIDs) throws(ProtocolError) -> (
    logged: [UInt8], resolved: JSONValue
  ) {
    throw ProtocolError(.invalidValue, "no board")
  }
  mutating func replay(_ logged: [UInt8]) throws {}
  mutating func make(_ intent: Intent, ids: GeneratedIDs) throws(ProtocolError) -> [UInt8] {
    throw ProtocolError(.invalidValue, "no board")
  }
  mutating func applyLogged(_ logged: [UInt8]) throws -> JSONValue { .null }
  var clock: UInt64 { 0 }
  mutating func advanceClock(to counter: UInt64) {}
  func boardJSON() -> JSONValue { .null }
  func snapshot() -> [UInt8] { [] }
  func hasLiveItem(_ id: String) -> Bool { false }
  var itemCount: Int { 0 }
  var listCount: Int { 0 }
}
