import Foundation

/// The durability layer: an append-only op log per room plus snapshots, in one SQLite database.
///
/// - The database is `<dir>/reorder.sqlite3` in WAL mode with `synchronous=FULL`, so a commit is on
///   disk before any `onDurable` runs. `":memory:"` gives a throwaway in-memory store (same code path).
/// - Writes go through one writer thread that groups everything queued into one transaction
///   (group commit): many ops per fsync, so durability does not cap throughput.
/// - Reads use a separate connection and never wait for the writer; they see committed data only.
///
/// Thread-safe: every method may be called from any thread.
public final class Store: @unchecked Sendable {
  /// The file name of the database inside the data directory.
  public static let databaseFileName = "reorder.sqlite3"
  /// How long a connection waits on another's lock before failing with `StoreError.busy`.
  static let busyTimeoutMilliseconds = 5_000

  /// The path given to `init` (a directory, or ":memory:").
  public let path: String
  /// Where the database lives: the file path, or ":memory:".
  public let databasePath: String

  let writer: StoreWriter
  /// The read connection, guarded by `readLock`.
  let reader: SQLiteConnection
  let readLock = NSLock()

  /// Opens (creating if needed) the store in directory `path`, or a throwaway one for ":memory:".
  /// With `retainedOps`, saving a room's snapshot at seq S deletes its ops up to S − `retainedOps`
  /// (all but op 1, which carries the room's epoch), so the log holds at most `retainedOps` plus one
  /// snapshot interval of ops per room; SQLite reuses the freed pages and hands back those beyond a
  /// slack (`StoreWriter+Vacuum.swift`), so the file stops growing.
  ///
  /// - Throws: `StoreError` saying what is wrong with the directory or the database, and what to do.
  public init(path: String, retainedOps: Int? = nil) throws(StoreError) {
    self.path = path
    let location: String
    let inMemory = path == ":memory:"
    if inMemory {
      // A named in-memory database (memdb VFS) shared by this store's two connections only.
      location = "file:/reorder-memory-\(UUID().uuidString)?vfs=memdb"
      databasePath = ":memory:"
    } else {
      try Store.prepareDirectory(path)
      databasePath = (path as NSString).appendingPathComponent(Store.databaseFileName)
      location = databasePath
    }
    let writeConnection = try SQLiteConnection(
      location: location, displayPath: databasePath, create: true, uri: inMemory)
    try Store.configureWriter(writeConnection, requireWAL: !inMemory)
    try StoreSchema.migrate(writeConnection)
    let readConnection = try SQLiteConnection(
      location: location, displayPath: databasePath, create: false, uri: inMemory)
    try readConnection.execute("PRAGMA busy_timeout = \(Store.busyTimeoutMilliseconds); PRAGMA query_only = ON")
    writer = StoreWriter(connection: writeConnection)
    writer.retainedOps = retainedOps
    reader = readConnection
    writer.start()
  }

  deinit { close() }

  /// Creates the data directory if missing and checks that it is a writable directory.
  public static func prepareDirectory(_ path: String) throws(StoreError) {
    guard !path.isEmpty else { throw .cannotCreateDirectory(path: path, reason: "the path is empty") }
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
      guard isDirectory.boolValue else { throw .notADirectory(path: path) }
    } else {
      do {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
      } catch {
        let reason = (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
        throw .cannotCreateDirectory(path: path, reason: reason)
      }
    }
    guard access(path, W_OK | X_OK) == 0 else { throw .directoryNotWritable(path: path) }
  }

  /// WAL, fsync on every commit, and a busy timeout for the write connection; a new database
  /// also gets incremental auto-vacuum, and the WAL file is cut back after each checkpoint, so that
  /// space freed by trimming can be handed back (see `StoreWriter+Vacuum.swift`).
  static func configureWriter(_ connection: SQLiteConnection, requireWAL: Bool) throws(StoreError) {
    try connection.execute("PRAGMA busy_timeout = \(busyTimeoutMilliseconds)")
    // Takes effect only before the first table exists (a database made by an earlier build keeps
    // reusing its free pages, but its file does not shrink).
    try connection.execute("PRAGMA auto_vacuum = INCREMENTAL")
    let mode = try connection.scalarText("PRAGMA journal_mode = WAL")?.lowercased() ?? ""
    if requireWAL && mode != "wal" {
      throw .cannotOpen(
        path: connection.displayPath,
        reason: "the file system refused WAL journal mode (got \(mode.isEmpty ? "nothing" : mode))")
    }
    try connection.execute("PRAGMA synchronous = FULL")
    try connection.execute("PRAGMA journal_size_limit = \(StoreWriter.walSizeLimitBytes)")
  }

  /// Commits everything queued, stops the writer thread and closes both connections. Idempotent.
  ///
  /// After `close`, appends fail with `StoreError.closed` and reads throw it. Called from inside an
  /// `onDurable` (on the writer thread) it stops the writer after the current batch without waiting.
  public func close() {
    writer.stop()
    readLock.lock()
    reader.close()
    readLock.unlock()
  }

  /// Counters of the writer (commits, ops, batch sizes): for tests, benchmarks and health output.
  public var statistics: StoreStatistics { writer.statistics }
}
