/// The database schema and its migrations, tracked in `PRAGMA user_version`.
///
/// Migration `i` (0-based) takes a database from version `i` to `i + 1`; each runs in its own
/// transaction together with the version bump, so a crash mid-migration leaves the old version.
/// Append new migrations; never edit a released one.
enum StoreSchema {
  /// Marks the file as ours (`PRAGMA application_id`), ASCII "RORD".
  static let applicationID: Int64 = 0x524F_5244

  /// The SQL of each migration, in order.
  static let migrations: [String] = [
    // 1: rooms, the append-only op log, and snapshots.
    """
    CREATE TABLE rooms (
      name TEXT PRIMARY KEY NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE ops (
      room TEXT NOT NULL,
      seq INTEGER NOT NULL,
      payload BLOB NOT NULL,
      PRIMARY KEY (room, seq)
    ) WITHOUT ROWID;
    CREATE TABLE snapshots (
      room TEXT NOT NULL,
      seq INTEGER NOT NULL,
      bytes BLOB NOT NULL,
      PRIMARY KEY (room, seq)
    );
    """,
    // 2: a summary per room, written with each commit (`Store.saveSummary`), so that the board
    // list is one read of this table: nothing is decoded. NULL for rooms stored before it.
    """
    ALTER TABLE rooms ADD COLUMN epoch TEXT;
    ALTER TABLE rooms ADD COLUMN seq INTEGER;
    ALTER TABLE rooms ADD COLUMN lists INTEGER;
    ALTER TABLE rooms ADD COLUMN items INTEGER;
    ALTER TABLE rooms ADD COLUMN updated_ms INTEGER;
    """,
    // 3: the board of `welcome` (its JSON) at the snapshot's seq, so that a room opened only to be
    // watched needs no decode. NULL for snapshots written before it or without one.
    """
    ALTER TABLE snapshots ADD COLUMN board BLOB;
    """,
  ]

  /// The version this build writes.
  static var currentVersion: Int { migrations.count }

  /// Brings the database up to `currentVersion`, or throws if it is not ours or is newer.
  static func migrate(_ connection: SQLiteConnection) throws(StoreError) {
    let application = try connection.scalarInt("PRAGMA application_id")
    if application != 0 && application != applicationID {
      throw .notAReorderDatabase(path: connection.displayPath)
    }
    let found = Int(try connection.scalarInt("PRAGMA user_version"))
    if found > currentVersion { throw .schemaTooNew(found: found, supported: currentVersion) }
    if found == currentVersion { return }
    for version in found..<currentVersion {
      try connection.execute("BEGIN IMMEDIATE")
      do {
        try connection.execute(migrations[version])
        try connection.execute("PRAGMA user_version = \(version + 1)")
        try connection.execute("PRAGMA application_id = \(applicationID)")
        try connection.execute("COMMIT")
      } catch {
        if connection.inTransaction { try? connection.execute("ROLLBACK") }
        throw error
      }
    }
  }
}
