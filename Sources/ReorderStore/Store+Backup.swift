import CSQLite
import Foundation

extension Store {
  /// Copies the database of data directory `directory` to the file `destination` while a server
  /// may be using it: SQLite's online backup API reads one consistent snapshot (WAL readers never
  /// wait for the writer, and the writer never waits for them), page by page, into a new file.
  /// The copy is a complete Reorder database; restore by stopping the server and putting it in
  /// an empty data directory as `reorder.sqlite3` (docs/DEPLOY.md).
  /// - Throws: `StoreError` when the source is not a Reorder data directory or the copy fails;
  ///   a partly written destination is removed.
  public static func backup(directory: String, to destination: String) throws(StoreError) {
    let sourcePath = (directory as NSString).appendingPathComponent(databaseFileName)
    guard FileManager.default.fileExists(atPath: sourcePath) else {
      throw .cannotOpen(path: sourcePath, reason: "no Reorder database in this directory")
    }
    guard !FileManager.default.fileExists(atPath: destination) else {
      throw .cannotOpen(path: destination, reason: "the file exists; back up to a new file")
    }
    let source = try SQLiteConnection(location: sourcePath, displayPath: sourcePath, create: false, uri: false)
    defer { source.close() }
    try source.execute("PRAGMA busy_timeout = \(busyTimeoutMilliseconds)")
    _ = try source.scalarInt("SELECT count(*) FROM sqlite_master")  // a Reorder database, or throws
    let target = try SQLiteConnection(location: destination, displayPath: destination, create: true, uri: false)
    do throws(StoreError) {
      try target.copy(from: source)
      target.close()
      let copy = try SQLiteConnection(location: destination, displayPath: destination, create: false, uri: false)
      defer { copy.close() }
      guard try copy.scalarText("PRAGMA integrity_check") == "ok" else {
        throw StoreError.notAReorderDatabase(path: destination)
      }
    } catch {
      target.close()
      try? FileManager.default.removeItem(atPath: destination)
      throw error
    }
  }
}

extension SQLiteConnection {
  /// Copies every page of `source` into this database (`sqlite3_backup_*`), a few hundred pages at
  /// a time, backing off while the source is busy.
  func copy(from source: SQLiteConnection) throws(StoreError) {
    guard let backup = sqlite3_backup_init(rawHandle, "main", source.rawHandle, "main") else {
      throw StoreError(
        sqliteCode: sqlite3_errcode(rawHandle), operation: "start the backup",
        message: String(cString: sqlite3_errmsg(rawHandle)), path: displayPath)
    }
    var rc: Int32 = SQLITE_OK
    repeat {
      rc = sqlite3_backup_step(backup, 256)
      if rc == SQLITE_BUSY || rc == SQLITE_LOCKED { usleep(10_000) }
    } while rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED
    let finish = sqlite3_backup_finish(backup)
    let result = rc == SQLITE_DONE ? finish : rc
    try check(result, "copy the database")
  }
}
