import CSQLite

/// Everything that can go wrong in the store, each with a message saying what happened and what to do.
///
/// SQLite result codes become these cases in exactly one place: `StoreError.init(sqliteCode:operation:message:)`.
public enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The data directory does not exist and could not be created.
  case cannotCreateDirectory(path: String, reason: String)
  /// The data path exists but is not a directory.
  case notADirectory(path: String)
  /// The data directory exists but this process may not write into it.
  case directoryNotWritable(path: String)
  /// The database file could not be opened.
  case cannotOpen(path: String, reason: String)
  /// The file is not a Reorder database (another SQLite file or not SQLite at all) or is damaged.
  case notAReorderDatabase(path: String)
  /// The database was written by a newer version of Reorder with a schema this build does not know.
  case schemaTooNew(found: Int, supported: Int)
  /// The disk (or a quota) is full; nothing from the failed commit was stored.
  case diskFull(operation: String)
  /// The database or its directory became read-only.
  case readOnly(operation: String)
  /// Another process or connection held a lock longer than the busy timeout.
  case busy(operation: String)
  /// The operating system reported an I/O error.
  case ioError(operation: String, message: String)
  /// An op with this room and seq is already stored with different bytes; the append was not stored.
  case conflictingSeq(room: String, seq: UInt64)
  /// A seq above `Int64.max` cannot be stored (SQLite integers are signed 64-bit).
  case seqOutOfRange(UInt64)
  /// An earlier append or snapshot of this room failed (`cause`), so the room's later writes are
  /// refused until it is opened again (`Store.reopen(room:)`): they may build on what was not stored.
  case roomStopped(room: String, cause: String)
  /// The store was closed; no more writes are accepted.
  case closed
  /// Any other SQLite failure, with its result code and message.
  case sqlite(code: Int32, operation: String, message: String)

  /// Maps an SQLite result code to a typed error. The only place SQLite codes are interpreted.
  init(sqliteCode code: Int32, operation: String, message: String, path: String) {
    switch code & 0xff {
    case SQLITE_FULL: self = .diskFull(operation: operation)
    case SQLITE_READONLY: self = .readOnly(operation: operation)
    case SQLITE_BUSY, SQLITE_LOCKED: self = .busy(operation: operation)
    case SQLITE_IOERR: self = .ioError(operation: operation, message: message)
    case SQLITE_NOTADB, SQLITE_CORRUPT: self = .notAReorderDatabase(path: path)
    case SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_AUTH: self = .cannotOpen(path: path, reason: message)
    default: self = .sqlite(code: code, operation: operation, message: message)
    }
  }

  /// A sentence saying what went wrong and what to do about it.
  public var description: String {
    switch self {
    case .cannotCreateDirectory(let path, let reason):
      return "cannot create the data directory \(path) (\(reason)); create it yourself or pass another --data path"
    case .notADirectory(let path):
      return "the data path \(path) exists but is not a directory; pass a directory to --data"
    case .directoryNotWritable(let path):
      return "the data directory \(path) is not writable by this process; fix its permissions or pass another --data"
    case .cannotOpen(let path, let reason):
      return
        "cannot open the database \(path) (\(reason)); check that the file and its directory are readable and writable"
    case .notAReorderDatabase(let path):
      return "\(path) is not a Reorder database or is damaged; move it away (keep a copy) and start again"
    case .schemaTooNew(let found, let supported):
      return
        "the database has schema version \(found) but this build knows only up to \(supported); run a newer reorder"
    case .diskFull(let operation):
      return "the disk is full while trying to \(operation); nothing from this commit was stored; free some space"
    case .readOnly(let operation):
      return "the database is read-only while trying to \(operation); check the permissions of the data directory"
    case .busy(let operation):
      return
        "the database stayed locked while trying to \(operation); is another reorder process using this data directory?"
    case .ioError(let operation, let message):
      return "I/O error while trying to \(operation) (\(message)); check the disk and the system log"
    case .conflictingSeq(let room, let seq):
      return "room \(room.debugDescription) already has a different op at seq \(seq); the append was not stored"
    case .seqOutOfRange(let seq):
      return "seq \(seq) is above the largest storable value \(Int64.max)"
    case .roomStopped(let room, let cause):
      return
        "an earlier write of room \(room.debugDescription) failed (\(cause)); its later writes are refused until the room is loaded again"
    case .closed:
      return "the store is closed; no more writes are accepted"
    case .sqlite(let code, let operation, let message):
      return "SQLite error \(code) while trying to \(operation): \(message)"
    }
  }
}
