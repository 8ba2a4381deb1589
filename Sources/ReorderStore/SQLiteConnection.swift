import CSQLite

/// Owns one `sqlite3*` handle. It is closed in exactly one place, `close()` (also reached from `deinit`).
///
/// Not thread-safe: the owner uses it from one thread at a time (the writer thread, or under the
/// reader lock). Opened with `SQLITE_OPEN_NOMUTEX` for that reason.
final class SQLiteConnection {
  private var handle: OpaquePointer?
  /// Where errors say the database lives (the file path, or ":memory:").
  let displayPath: String
  /// Prepared statements kept for reuse; finalized in `close()` before the handle.
  private var cache: [String: SQLiteStatement] = [:]

  /// Opens (creating if `create`) the database at `location` (a path, or a `file:` URI when `uri`).
  init(location: String, displayPath: String, create: Bool, uri: Bool) throws(StoreError) {
    self.displayPath = displayPath
    var db: OpaquePointer?
    var flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX
    if create { flags |= SQLITE_OPEN_CREATE }
    if uri { flags |= SQLITE_OPEN_URI }
    let rc = sqlite3_open_v2(location, &db, flags, nil)
    guard rc == SQLITE_OK, let db else {
      let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
      sqlite3_close_v2(db)
      throw StoreError(sqliteCode: rc, operation: "open the database", message: message, path: displayPath)
    }
    handle = db
    sqlite3_extended_result_codes(db, 1)
  }

  deinit { close() }

  /// Finalizes every cached statement, then closes the handle. Idempotent.
  func close() {
    for statement in cache.values { statement.finalize() }
    cache.removeAll()
    if let handle {
      // close_v2 defers the close until any stray statement is finalized, so it never leaks or fails.
      sqlite3_close_v2(handle)
      self.handle = nil
    }
  }

  /// Whether the connection has been closed.
  var isClosed: Bool { handle == nil }

  /// The open handle (for SQLite calls made outside this type, such as the backup API).
  var rawHandle: OpaquePointer? { handle }

  /// Throws the typed error for `rc` unless it is one of the `accepted` codes. The one place
  /// where a result code becomes a `StoreError`.
  func check(_ rc: Int32, _ operation: @autoclosure () -> String, accepted: Int32 = SQLITE_OK) throws(StoreError) {
    if rc == accepted || rc == SQLITE_OK { return }
    let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "connection closed"
    throw StoreError(sqliteCode: rc, operation: operation(), message: message, path: displayPath)
  }

  /// Runs one or more SQL statements that return no rows we need.
  func execute(_ sql: String) throws(StoreError) {
    guard let handle else { throw .closed }
    try check(sqlite3_exec(handle, sql, nil, nil, nil), "run \(sql.prefix(40))")
  }

  /// Returns the cached prepared statement for `sql`, reset and with bindings cleared.
  func statement(_ sql: String) throws(StoreError) -> SQLiteStatement {
    if let cached = cache[sql] {
      cached.reset()
      return cached
    }
    let statement = try prepare(sql)
    cache[sql] = statement
    return statement
  }

  /// Prepares a statement that the caller owns (finalized when released).
  func prepare(_ sql: String) throws(StoreError) -> SQLiteStatement {
    guard let handle else { throw .closed }
    var raw: OpaquePointer?
    try check(sqlite3_prepare_v2(handle, sql, -1, &raw, nil), "prepare \(sql.prefix(40))")
    guard let raw else { throw .sqlite(code: SQLITE_MISUSE, operation: "prepare", message: "empty statement") }
    return SQLiteStatement(handle: raw, connection: self)
  }

  /// Runs a single-value query such as `PRAGMA user_version` and returns the first column as text.
  func scalarText(_ sql: String) throws(StoreError) -> String? {
    let statement = try prepare(sql)
    guard try statement.step() else { return nil }
    return statement.text(0)
  }

  /// Runs a single-value integer query such as `PRAGMA user_version`.
  func scalarInt(_ sql: String) throws(StoreError) -> Int64 {
    let statement = try prepare(sql)
    guard try statement.step() else { return 0 }
    return statement.int64(0)
  }

  /// Whether a transaction is open (false after SQLite rolled one back by itself on a hard error).
  var inTransaction: Bool {
    guard let handle else { return false }
    return sqlite3_get_autocommit(handle) == 0
  }

  /// Rows changed by the last INSERT/UPDATE/DELETE.
  var changes: Int32 {
    guard let handle else { return 0 }
    return sqlite3_changes(handle)
  }
}
