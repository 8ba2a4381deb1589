import Dispatch
import ReorderBasics
import ReorderRooms
import ReorderStore

/// The rooms' storage port over the SQLite store: a `RoomLogStore`, whose appends one node's
/// `LocalLog` makes.
///
/// Appends and snapshots go to the store's writer thread (group commit) and answer from there;
/// reads (loads, catch-up, room names) run one at a time on a reader queue of this adapter with the
/// store's read connection, which never waits for the writer. No call blocks its caller, so the
/// service thread never waits for the disk.
public final class StoreRoomStorage: RoomLogStore, @unchecked Sendable {
  /// Records hold their resolved op, snapshots their board JSON.
  public static let keepsResolvedOps = true
  /// The store it reads and writes.
  public let store: Store
  /// Where reads run: never the service thread, and at a lower priority than it. Serial, as the
  /// store has one read connection.
  let reads = BackgroundQueue.make(name: "reorder-store-reader")

  /// The port over `store`.
  public init(store: Store) { self.store = store }

  public func load(
    room: String, remembering: Int, completion: @escaping @Sendable (Result<RoomHistory, RoomStoreError>) -> Void
  ) {
    // After the writes queued before the load (a final snapshot of the room, in particular): the
    // reads run on the other connection, which sees only what is committed.
    store.afterQueuedWrites { [reads, store] in
      reads.async {
        completion(
          Result { () throws(RoomStoreError) in
            try RoomHistory.read(
              remembering: remembering,
              snapshot: { () throws(RoomStoreError) in
                try StoreRoomStorage.mapped { () throws(StoreError) in
                  try store.loadSnapshot(room: room).map { RoomSnapshot(seq: $0.seq, bytes: $0.bytes, board: $0.board) }
                }
              },
              entries: { after, limit throws(RoomStoreError) in
                try StoreRoomStorage.entries(of: store, room: room, after: after, limit: limit)
              })
          })
      }
    }
  }

  public func reopen(room: String) { store.reopen(room: room) }

  public func append(
    room: String, entries: [LogEntry], completion: @escaping @Sendable (Result<UInt64, RoomStoreError>) -> Void
  ) {
    store.append(
      room: room, ops: entries.map { StoredOp(seq: $0.seq, payload: $0.payload) },
      onDurable: { completion(.success($0)) },
      onFailure: { completion(.failure(StoreRoomStorage.error($0))) })
  }

  public func saveSnapshot(
    room: String, snapshot: RoomSnapshot, completion: @escaping @Sendable (Result<Void, RoomStoreError>) -> Void
  ) {
    store.saveSnapshot(room: room, seq: snapshot.seq, bytes: snapshot.bytes, board: snapshot.board) { result in
      completion(result.mapError(StoreRoomStorage.error))
    }
  }

  public func entries(
    room: String, after: UInt64, limit: Int,
    completion: @escaping @Sendable (Result<[LogEntry], RoomStoreError>) -> Void
  ) {
    read(completion) { (store) throws(RoomStoreError) in
      try StoreRoomStorage.entries(of: store, room: room, after: after, limit: limit)
    }
  }

  public func snapshot(
    room: String, atOrBefore seq: UInt64,
    completion: @escaping @Sendable (Result<RoomSnapshot?, RoomStoreError>) -> Void
  ) {
    read(completion) { (store) throws(RoomStoreError) in
      try StoreRoomStorage.mapped { () throws(StoreError) in
        try store.loadSnapshot(room: room, atOrBefore: seq).map {
          RoomSnapshot(seq: $0.seq, bytes: $0.bytes, board: $0.board)
        }
      }
    }
  }

  public func latestEntries(
    room: String, before: UInt64, limit: Int,
    completion: @escaping @Sendable (Result<[LogEntry], RoomStoreError>) -> Void
  ) {
    read(completion) { (store) throws(RoomStoreError) in
      try StoreRoomStorage.mapped { () throws(StoreError) in
        try store.ops(room: room, before: before, limit: limit).map { LogEntry(seq: $0.seq, payload: $0.payload) }
      }
    }
  }

  public func roomNames(completion: @escaping @Sendable (Result<[String], RoomStoreError>) -> Void) {
    read(completion) { (store) throws(RoomStoreError) in
      try StoreRoomStorage.mapped { () throws(StoreError) in try store.roomNames() }
    }
  }

  /// Runs `body` on the reader queue with the store and hands its result to `completion` there.
  private func read<T>(
    _ completion: @escaping @Sendable (Result<T, RoomStoreError>) -> Void,
    _ body: @escaping @Sendable (Store) throws(RoomStoreError) -> T
  ) {
    reads.async { [store] in completion(Result { () throws(RoomStoreError) in try body(store) }) }
  }

  private static func entries(of store: Store, room: String, after: UInt64, limit: Int) throws(RoomStoreError)
    -> [LogEntry]
  {
    try mapped { () throws(StoreError) in
      try store.ops(room: room, after: after, limit: limit).map { LogEntry(seq: $0.seq, payload: $0.payload) }
    }
  }

  private static func mapped<T>(_ body: () throws(StoreError) -> T) throws(RoomStoreError) -> T {
    do { return try body() } catch { throw StoreRoomStorage.error(error) }
  }

  /// The port's kind of failure for a store error (the message keeps the store's own words).
  static func error(_ error: StoreError) -> RoomStoreError {
    switch error {
    case .diskFull: return .full(error.description)
    case .notAReorderDatabase, .schemaTooNew: return .corrupt(error.description)
    case .conflictingSeq: return .conflict(error.description)
    default: return .unavailable(error.description)
    }
  }
}
