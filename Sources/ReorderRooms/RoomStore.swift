/// One op of a room's log: its seq and the stored payload (see `OpRecord`).
public struct LogEntry: Sendable, Equatable {
  /// Per-room, gap-free, starting at 1.
  public var seq: UInt64
  /// The encoded `OpRecord`.
  public var payload: [UInt8]

  /// A log entry.
  public init(seq: UInt64, payload: [UInt8]) {
    self.seq = seq
    self.payload = payload
  }
}

/// A stored board snapshot: the seq it includes, the board bytes, and optionally the board's
/// `welcome` JSON at that seq.
public struct RoomSnapshot: Sendable, Equatable {
  /// The last seq whose op the snapshot includes.
  public var seq: UInt64
  /// `RoomBoard.snapshot()` bytes.
  public var bytes: [UInt8]
  /// `welcome.board` at `seq`, encoded (`RoomBoard.encodedBoardJSON()`), when stored with the
  /// snapshot: a room opened from it serves joins without decoding the board (`Room+View.swift`).
  /// A store that does not keep it returns nil.
  public var board: [UInt8]?

  /// A snapshot.
  public init(seq: UInt64, bytes: [UInt8], board: [UInt8]? = nil) {
    self.seq = seq
    self.bytes = bytes
    self.board = board
  }
}

/// Everything a room is opened from, as the store returned it (bytes only; `RoomLoad.prepare`
/// decodes it).
public struct RoomHistory: Sendable, Equatable {
  /// The latest snapshot, if the room has one.
  public var snapshot: RoomSnapshot?
  /// The ops at or before the snapshot's seq, the latest `remembering` of them, in seq order: their
  /// op ids keep re-sends idempotent across restarts and they serve `since` catch-ups.
  public var remembered: [LogEntry]
  /// Every op after the snapshot (all of them without one), in seq order: replayed onto the board.
  public var after: [LogEntry]
  /// The room's op 1 (it carries the room's epoch), if stored.
  public var first: LogEntry?

  /// A history.
  public init(snapshot: RoomSnapshot?, remembered: [LogEntry], after: [LogEntry], first: LogEntry?) {
    self.snapshot = snapshot
    self.remembered = remembered
    self.after = after
    self.first = first
  }

  /// A room with nothing stored.
  public static let empty = RoomHistory(snapshot: nil, remembered: [], after: [], first: nil)

  /// Gathers a history through synchronous reads: for a store implementation on a thread of its
  /// own (never the rooms' thread). `snapshot` reads the latest snapshot, `entries(after, limit)`
  /// up to `limit` ops with seq > `after` in seq order.
  /// - Complexity: O(remembering + ops after the snapshot) entries read, in pages of 1,000.
  public static func read(
    remembering: Int, snapshot readSnapshot: () throws(RoomStoreError) -> RoomSnapshot?,
    entries: (_ after: UInt64, _ limit: Int) throws(RoomStoreError) -> [LogEntry]
  ) throws(RoomStoreError) -> RoomHistory {
    let snapshot = try readSnapshot()
    let snapshotSeq = snapshot?.seq ?? 0
    var remembered: [LogEntry] = []
    let remember = UInt64(max(0, remembering))
    var next = snapshotSeq > remember ? snapshotSeq - remember : 0
    while next < snapshotSeq {
      let page = try entries(next, min(1_000, Int(snapshotSeq - next)))
      guard let last = page.last else { break }
      remembered.append(contentsOf: page.lazy.filter { $0.seq <= snapshotSeq })
      next = last.seq
    }
    var after: [LogEntry] = []
    next = snapshotSeq
    while true {
      let page = try entries(next, 1_000)
      guard let last = page.last else { break }
      after.append(contentsOf: page)
      next = last.seq
    }
    let first = remembered.first?.seq == 1 ? remembered.first : try entries(0, 1).first
    return RoomHistory(snapshot: snapshot, remembered: remembered, after: after, first: first)
  }
}

/// Why storage could not answer: what the rooms tell the clients and the log.
public enum RoomStoreError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The store cannot be reached or refuses for the moment (closed, locked, I/O error, network):
  /// retry later.
  case unavailable(String)
  /// The disk or a quota is full: nothing of the failed write was stored.
  case full(String)
  /// What is stored cannot be read back (a damaged snapshot or record, a gap in the log).
  case corrupt(String)
  /// Another op is already stored at this seq (another writer got there first).
  case conflict(String)

  /// One word for the kind of failure: `unavailable`, `full`, `corrupt`, `conflict` (close reasons).
  public var kind: String {
    switch self {
    case .unavailable: return "unavailable"
    case .full: return "full"
    case .corrupt: return "corrupt"
    case .conflict: return "conflict"
    }
  }

  /// The kind and the store's own words.
  public var description: String {
    switch self {
    case .unavailable(let m), .full(let m), .corrupt(let m), .conflict(let m): return "\(kind): \(m)"
    }
  }
}

/// Everything the rooms need from storage: the port a store implements (SQLite in the server, an
/// in-memory one for tests; a store shared between nodes implements the same port).
///
/// Every call answers through its completion, exactly once, on any thread, possibly before the
/// call returns: the rooms' thread never waits for storage. The rooms never call a store
/// themselves; they return `RoomAction`s: the driver reads (`.load`, `.read`) and hands the answers
/// back (`RoomRegistry.loaded`, `read`); the writes (`.persist`, `.snapshot`) go to the rooms' log
/// (`LogPort`), which makes them on its store (one node's `RoomLogStore`; a cluster's ops are in the
/// shared log) and reports a failed one to `RoomRegistry.writeFailed`.
///
/// After a failed write (append or snapshot) of a room, a store stores no later write of that room
/// until `reopen(room:)`: the rooms drop a room whose write failed, or rebuild it from storage when
/// the disk was full (its memory is ahead of the disk either way), and its writes queued before
/// that were made on that memory, e.g. ops made on the board the room compacted at a snapshot that
/// was not stored, or ops after a gap.
public protocol RoomStore: AnyObject, Sendable {
  /// Whether this storage keeps what one node writes: records holding their resolved op and
  /// snapshots with their board JSON (one node's SQLite), so that a load keeps the catch-up frames
  /// before its snapshot and may open a room as a view, and the history is read from it; false
  /// where the records hold the maker's view of each op (the Redis log): a replica resolves them
  /// and keeps what the history needs. The registry's `RoomNode.keepsResolvedOps` is its storage's.
  static var keepsResolvedOps: Bool { get }

  /// Everything `room` is opened from (see `RoomHistory`; `remembering` bounds `remembered`);
  /// `RoomHistory.empty` for a room with nothing stored. It reads after every write of the room
  /// queued before the call (a room unloaded with its final snapshot still queued reloads from it).
  func load(
    room: String, remembering: Int, completion: @escaping @Sendable (Result<RoomHistory, RoomStoreError>) -> Void)
  /// Saves a snapshot of `room` at `seq`, after the appends queued before it.
  func saveSnapshot(
    room: String, snapshot: RoomSnapshot, completion: @escaping @Sendable (Result<Void, RoomStoreError>) -> Void)
  /// Up to `limit` ops of `room` with seq > `after`, in seq order (catch-up reads).
  func entries(
    room: String, after: UInt64, limit: Int,
    completion: @escaping @Sendable (Result<[LogEntry], RoomStoreError>) -> Void)
  /// The latest snapshot of `room` taken at or before `seq`, nil when none is kept (the base of
  /// the board at `seq`).
  func snapshot(
    room: String, atOrBefore seq: UInt64,
    completion: @escaping @Sendable (Result<RoomSnapshot?, RoomStoreError>) -> Void)
  /// The newest `limit` ops of `room` with seq < `before`, in seq order (history reads).
  func latestEntries(
    room: String, before: UInt64, limit: Int,
    completion: @escaping @Sendable (Result<[LogEntry], RoomStoreError>) -> Void)
  /// Names of every room with stored state, sorted.
  func roomNames(completion: @escaping @Sendable (Result<[String], RoomStoreError>) -> Void)
  /// The rooms open `room` again (its `.load` is issued; no instance of it is open): its writes are
  /// taken again if a failed one had stopped them. Called on the rooms' thread, so it orders after
  /// every write of the instance dropped before it and before every write of the next one.
  func reopen(room: String)
}

/// A `RoomStore` that a node's own log keeps its rooms' ops in: one node's (SQLite, or in memory for
/// tests), written by `LocalLog` with the resolved record of each op (`RoomAction.persist`). A
/// cluster's storage is a plain `RoomStore`: the shared log keeps the ops itself.
public protocol RoomLogStore: RoomStore {
  /// Appends ops of `room` (seqs increasing, following the stored ones). Answers once they are
  /// durable with the room's highest durable seq, or with the error (none of them acknowledged).
  /// The answers of one room's appends come in append order.
  func append(
    room: String, entries: [LogEntry], completion: @escaping @Sendable (Result<UInt64, RoomStoreError>) -> Void)
}

extension RoomStore {
  /// Nothing to take again: for stores whose writes take effect in call order and never fail alone
  /// (`InMemoryRoomStore`, whose failures are injected per operation and last until cleared).
  public func reopen(room: String) {}
}
