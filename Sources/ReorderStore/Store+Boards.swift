import Foundation

/// What the HTTP API changes in one go: a whole room replaced or deleted, and the per-room summary
/// the board list reads.
public enum BoardWrite: Sendable {
  /// Deletes everything stored for `room` (ops, snapshots, summary), then stores `ops` (seqs from
  /// 1) and `snapshot`, with `summary`: one transaction, so a reader sees the old room or the new.
  case replace(room: String, ops: [StoredOp], snapshot: StoredSnapshot?, summary: RoomSummary)
  /// As `replace`, only when nothing is stored for `room` (no op, no snapshot); otherwise changes
  /// nothing (`existed` true).
  case create(room: String, ops: [StoredOp], snapshot: StoredSnapshot?, summary: RoomSummary)
  /// Deletes everything stored for `room`.
  case delete(room: String)
  /// Updates the summary of a stored room (a room that is not stored is left alone).
  case summary(room: String, RoomSummary)

  /// The room written.
  var room: String {
    switch self {
    case .replace(let room, _, _, _), .create(let room, _, _, _), .delete(let room), .summary(let room, _): room
    }
  }

  /// Whether this is a summary update (not a change of what the room holds).
  var isSummary: Bool {
    if case .summary = self { true } else { false }
  }
}

/// A snapshot to store: the seq it includes, its bytes, and the board JSON kept with it.
public struct StoredSnapshot: Sendable, Equatable {
  /// The last seq the snapshot includes.
  public var seq: UInt64
  /// The board bytes.
  public var bytes: [UInt8]
  /// The board's JSON at `seq` (`welcome.board`), if kept (see `Store.saveSnapshot`).
  public var board: [UInt8]?

  /// A snapshot.
  public init(seq: UInt64, bytes: [UInt8], board: [UInt8]? = nil) {
    self.seq = seq
    self.bytes = bytes
    self.board = board
  }
}

/// What the rooms say about a room with each commit: the list shows it without decoding anything.
public struct RoomSummary: Sendable, Equatable {
  /// The room's history id.
  public var epoch: String
  /// Its last seq.
  public var seq: UInt64
  /// Lists on the board.
  public var lists: Int
  /// Items on the board (`RoomBoard.itemCount`: created ones, deleted included).
  public var items: Int
  /// When the change it covers happened (ms since 1970); nil: when it is written.
  public var updatedMilliseconds: Int64?

  /// A summary.
  public init(epoch: String, seq: UInt64, lists: Int, items: Int, updatedMilliseconds: Int64? = nil) {
    self.updatedMilliseconds = updatedMilliseconds
    self.epoch = epoch
    self.seq = seq
    self.lists = lists
    self.items = items
  }
}

/// A stored room as the board list reads it; `summary` is nil for a room stored before summaries
/// were kept (until its next commit).
public struct StoredRoom: Sendable, Equatable {
  /// The room name.
  public var name: String
  /// Its summary, if one was written.
  public var summary: RoomSummary?
  /// When the summary was written (milliseconds since 1970, UTC).
  public var updatedMilliseconds: Int64?

  /// A stored room.
  public init(name: String, summary: RoomSummary?, updatedMilliseconds: Int64?) {
    self.name = name
    self.summary = summary
    self.updatedMilliseconds = updatedMilliseconds
  }
}

/// What a `BoardWrite` found and left.
public struct BoardWriteResult: Sendable, Equatable {
  /// Whether the room had stored state before the write.
  public var existed: Bool
  /// The room's highest stored seq after it (0 once deleted).
  public var seq: UInt64
}

extension Store {
  /// Queues a whole-room write for the next group commit; `completion` runs on the writer thread
  /// once it is committed (or failed), after the completions of everything queued before it.
  public func write(_ write: BoardWrite, completion: @escaping @Sendable (Result<BoardWriteResult, StoreError>) -> Void)
  {
    if !writer.enqueue(.board(write, completion: completion)) { completion(.failure(.closed)) }
  }

  /// Up to `limit` stored rooms with names after `after` (all from the first without it), by name.
  ///
  /// - Complexity: O(log n + limit).
  public func rooms(after: String?, limit: Int) throws(StoreError) -> [StoredRoom] {
    guard limit > 0 else { return [] }
    return try reading { connection throws(StoreError) in
      let query = try connection.statement(
        "SELECT name, epoch, seq, lists, items, updated_ms FROM rooms WHERE name > ?1 ORDER BY name LIMIT ?2")
      defer { query.reset() }
      try query.bind(after ?? "", at: 1)
      try query.bind(Int64(limit), at: 2)
      var rooms: [StoredRoom] = []
      while try query.step() {
        let summary =
          query.isNull(1) || query.isNull(2) || query.isNull(3) || query.isNull(4)
          ? nil
          : RoomSummary(
            epoch: query.text(1), seq: UInt64(query.int64(2)), lists: Int(query.int64(3)), items: Int(query.int64(4)))
        rooms.append(
          StoredRoom(name: query.text(0), summary: summary, updatedMilliseconds: query.isNull(5) ? nil : query.int64(5))
        )
      }
      return rooms
    }
  }
}

extension StoreWriter {
  /// The positions of the summaries in `batch` that a later summary of the same room replaces
  /// before the commit: with appends going on, each append is followed by a summary, and one
  /// update per room per commit is enough.
  static func supersededSummaries(_ batch: [Job]) -> Set<Int> {
    var latest: [String: Int] = [:]
    var superseded: Set<Int> = []
    for (index, job) in batch.enumerated() {
      guard case .board(.summary(let room, _), _) = job else { continue }
      if let earlier = latest.updateValue(index, forKey: room) { superseded.insert(earlier) }
    }
    return superseded
  }

  /// Performs a `BoardWrite` inside the current transaction (a `superseded` summary writes
  /// nothing). Throws only errors that doom it.
  func write(_ write: BoardWrite, updated: inout [String: UInt64], superseded: Bool = false) throws(StoreError)
    -> BoardWriteResult
  {
    switch write {
    case .delete(let room):
      let existed = try deleteAll(room, updated: &updated)
      return BoardWriteResult(existed: existed, seq: 0)
    case .create(let room, let ops, let snapshot, let summary):
      if try holdsHistory(room) {
        return BoardWriteResult(existed: true, seq: try highestSeq(of: room, updated: &updated))
      }
      return try self.write(.replace(room: room, ops: ops, snapshot: snapshot, summary: summary), updated: &updated)
    case .replace(let room, let ops, let snapshot, let summary):
      let existed = try deleteAll(room, updated: &updated)
      var high = try highestSeq(of: room, updated: &updated)
      let insert = try connection.statement("INSERT INTO ops(room, seq, payload) VALUES (?1, ?2, ?3)")
      for op in ops {
        guard op.seq <= UInt64(Int64.max) else { throw .seqOutOfRange(op.seq) }
        insert.reset()
        try insert.bind(room, at: 1)
        try insert.bind(Int64(op.seq), at: 2)
        try insert.bind(op.payload, at: 3)
        try insert.run()
        high = max(high, op.seq)
      }
      if let snapshot {
        let save = try connection.statement(
          "INSERT INTO snapshots(room, seq, bytes, board) VALUES (?1, ?2, ?3, ?4)")
        try save.bind(room, at: 1)
        try save.bind(Int64(snapshot.seq), at: 2)
        try save.bind(snapshot.bytes, at: 3)
        if let board = snapshot.board { try save.bind(board, at: 4) }  // unbound parameters are NULL
        try save.run()
      }
      updated[room] = high
      try saveSummary(room, summary)
      return BoardWriteResult(existed: existed, seq: high)
    case .summary(let room, let summary):
      if !superseded { try saveSummary(room, summary) }
      return BoardWriteResult(existed: true, seq: updated[room] ?? highWater[room] ?? summary.seq)
    }
  }

  /// Whether `room` has an op or a snapshot stored.
  private func holdsHistory(_ room: String) throws(StoreError) -> Bool {
    for sql in ["SELECT 1 FROM ops WHERE room = ?1 LIMIT 1", "SELECT 1 FROM snapshots WHERE room = ?1 LIMIT 1"] {
      let select = try connection.statement(sql)
      try select.bind(room, at: 1)
      let found = try select.step()
      select.reset()
      if found { return true }
    }
    return false
  }

  /// Deletes every row of `room`; whether there was any. The room's cached seq goes too, so that
  /// a later write registers the room again.
  private func deleteAll(_ room: String, updated: inout [String: UInt64]) throws(StoreError) -> Bool {
    var existed = false
    for sql in [
      "DELETE FROM ops WHERE room = ?1", "DELETE FROM snapshots WHERE room = ?1", "DELETE FROM rooms WHERE name = ?1",
    ] {
      let delete = try connection.statement(sql)
      try delete.bind(room, at: 1)
      try delete.run()
      existed = existed || connection.changes > 0
    }
    updated[room] = nil
    highWater[room] = nil
    return existed
  }

  /// Writes `summary`; `updated_ms` stays when the epoch and seq are the stored ones (a summary
  /// saved again, nothing changed).
  private func saveSummary(_ room: String, _ summary: RoomSummary) throws(StoreError) {
    let update = try connection.statement(
      """
      UPDATE rooms SET epoch = ?2, seq = ?3, lists = ?4, items = ?5,
        updated_ms = CASE WHEN epoch IS ?2 AND seq IS ?3 AND updated_ms IS NOT NULL THEN updated_ms ELSE ?6 END
      WHERE name = ?1
      """)
    try update.bind(room, at: 1)
    try update.bind(summary.epoch, at: 2)
    try update.bind(Int64(min(summary.seq, UInt64(Int64.max))), at: 3)
    try update.bind(Int64(summary.lists), at: 4)
    try update.bind(Int64(summary.items), at: 5)
    try update.bind(summary.updatedMilliseconds ?? Int64((Date().timeIntervalSince1970 * 1_000).rounded()), at: 6)
    try update.run()
  }
}
