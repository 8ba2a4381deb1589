/// Whole-board writes, the HTTP API's `PUT` and `DELETE`: a board put as a room's new history, a
/// room's history deleted. Two implementations: the server's SQLite storage (one node) and Redis
/// (`reorder_board_put`, `reorder_board_delete`). The store decides whether a board exists, in
/// order with the room's appends before the write. The rooms learn of a write once it is answered
/// (`RoomRegistry.boardWritten(room:epoch:now:)`).
///
/// Every call answers through its completion, exactly once, on any thread.
public protocol BoardWrites: AnyObject, Sendable {
  /// Stores `entries` (seqs from 1, op 1 carrying `epoch`) and `snapshot` as `room`'s history, with
  /// `summary`, in one durable step: where the room has none (`created`), or, with `replace`,
  /// in place of the one it has (`replaced`); otherwise nothing changes (`exists`).
  func putBoard(
    room: String, epoch: String, replace: Bool, entries: [LogEntry], snapshot: RoomSnapshot, summary: BoardSummary,
    completion: @escaping @Sendable (Result<BoardPut, RoomStoreError>) -> Void)
  /// Deletes everything stored for `room` (ops, snapshots, summary). Answers whether it had a
  /// history.
  func deleteBoard(room: String, completion: @escaping @Sendable (Result<Bool, RoomStoreError>) -> Void)
}

/// What became of a `BoardWrites.putBoard`.
public enum BoardPut: Sendable, Equatable {
  /// The room had no history: the board is its history now.
  case created
  /// The room had a history and replacing was asked for: the board's is its history now.
  case replaced
  /// The room has a history and replacing was not asked for: nothing changed.
  case exists
}

/// What the HTTP API's board list needs from storage beyond `RoomStore`: each stored board's
/// summary. The server's SQLite storage implements it; a store without it gets a list without
/// summaries.
///
/// Like `RoomStore`, every call answers through its completion, exactly once, on any thread; the
/// writes are ordered with the same store's appends and snapshots (queued after those before them).
public protocol BoardDirectory: RoomStore {
  /// Records `summary` for a stored room after the appends queued before it; failures are logged.
  /// Its `updated_at` is `updatedMilliseconds` (ms since 1970) when given, else the commit's time;
  /// a summary of the same epoch and seq as the stored one keeps the stored time (nothing changed).
  func saveSummary(room: String, summary: BoardSummary, updatedMilliseconds: Int64?)
  /// Up to `limit` stored boards with names after `after` (from the first without it), by name.
  func boards(
    after: String?, limit: Int, completion: @escaping @Sendable (Result<[BoardListing], RoomStoreError>) -> Void)
}

/// A board's figures as the list shows them, written with each commit.
public struct BoardSummary: Sendable, Equatable {
  /// The room's history id.
  public var epoch: String
  /// Its last seq.
  public var seq: UInt64
  /// Lists on the board.
  public var lists: Int
  /// Items created on the board, deleted ones included (what `--max-items-per-room` counts).
  public var items: Int

  /// A summary.
  public init(epoch: String, seq: UInt64, lists: Int, items: Int) {
    self.epoch = epoch
    self.seq = seq
    self.lists = lists
    self.items = items
  }
}

/// A stored board in the list; `summary` is nil for one stored before summaries were kept.
public struct BoardListing: Sendable, Equatable {
  /// The room name.
  public var room: String
  /// Its summary, if written.
  public var summary: BoardSummary?
  /// When the summary was written (milliseconds since 1970, UTC).
  public var updatedMilliseconds: Int64?

  /// A listing.
  public init(room: String, summary: BoardSummary?, updatedMilliseconds: Int64?) {
    self.room = room
    self.summary = summary
    self.updatedMilliseconds = updatedMilliseconds
  }
}

extension Room {
  /// The room's figures now, for `BoardDirectory.saveSummary`.
  public var summary: BoardSummary {
    BoardSummary(epoch: epoch, seq: seq, lists: board.listCount, items: board.itemCount)
  }
}

extension PreparedRoom {
  /// The loaded room's figures (a board listed before summaries were kept).
  public var summary: BoardSummary { room.summary }
}
