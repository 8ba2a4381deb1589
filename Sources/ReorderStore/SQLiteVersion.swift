import CSQLite

/// The version of the SQLite library linked at run time (`sqlite3_libversion`), such as `3.40.1`.
public enum SQLiteVersion {
  /// The library's own version string.
  public static var current: String { String(cString: sqlite3_libversion()) }
}
