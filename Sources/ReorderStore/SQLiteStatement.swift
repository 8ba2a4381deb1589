import CSQLite

/// Owns one `sqlite3_stmt*`; finalized in exactly one place, `finalize()` (also reached from `deinit`).
final class SQLiteStatement {
  private var handle: OpaquePointer?
  private unowned let connection: SQLiteConnection

  init(handle: OpaquePointer, connection: SQLiteConnection) {
    self.handle = handle
    self.connection = connection
  }

  deinit { finalize() }

  /// Releases the statement. Idempotent.
  func finalize() {
    if let handle {
      sqlite3_finalize(handle)
      self.handle = nil
    }
  }

  /// Resets the statement so it can run again, and clears its bindings.
  func reset() {
    guard let handle else { return }
    sqlite3_reset(handle)
    sqlite3_clear_bindings(handle)
  }

  /// Binds a 64-bit integer to the 1-based parameter `index`.
  func bind(_ value: Int64, at index: Int32) throws(StoreError) {
    try connection.check(sqlite3_bind_int64(handle, index, value), "bind an integer")
  }

  /// Binds UTF-8 text (embedded NULs kept) to the 1-based parameter `index`.
  func bind(_ value: String, at index: Int32) throws(StoreError) {
    var copy = value
    let rc = copy.withUTF8 { utf8 in
      // An empty buffer may have a nil base address, which would bind NULL instead of "".
      let base = utf8.baseAddress.map { UnsafeRawPointer($0) } ?? UnsafeRawPointer(bitPattern: 1)!
      return sqlite3_bind_text(
        handle, index, base.assumingMemoryBound(to: CChar.self), Int32(utf8.count), reorder_sqlite_transient())
    }
    try connection.check(rc, "bind text")
  }

  /// Binds bytes as a BLOB (an empty array binds an empty BLOB, not NULL).
  func bind(_ value: [UInt8], at index: Int32) throws(StoreError) {
    let rc = value.withUnsafeBytes { bytes in
      guard let base = bytes.baseAddress, !bytes.isEmpty else { return sqlite3_bind_zeroblob(handle, index, 0) }
      return sqlite3_bind_blob(handle, index, base, Int32(bytes.count), reorder_sqlite_transient())
    }
    try connection.check(rc, "bind a blob")
  }

  /// Advances; returns true when a row is available, false when done.
  func step() throws(StoreError) -> Bool {
    let rc = sqlite3_step(handle)
    if rc == SQLITE_ROW { return true }
    try connection.check(rc, "step a statement", accepted: SQLITE_DONE)
    return false
  }

  /// Runs a statement that returns no rows.
  func run() throws(StoreError) {
    while try step() {}
  }

  /// The integer in column `index` of the current row.
  func int64(_ index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

  /// Whether column `index` of the current row is NULL.
  func isNull(_ index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }

  /// The bytes in column `index` of the current row.
  func bytes(_ index: Int32) -> [UInt8] {
    guard let pointer = sqlite3_column_blob(handle, index) else { return [] }
    let count = Int(sqlite3_column_bytes(handle, index))
    return Array(UnsafeRawBufferPointer(start: pointer, count: count))
  }

  /// The UTF-8 text in column `index` of the current row.
  func text(_ index: Int32) -> String {
    guard let pointer = sqlite3_column_text(handle, index) else { return "" }
    let count = Int(sqlite3_column_bytes(handle, index))
    return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
  }
}
