import Foundation

extension Store {
  /// Runs `body` with the read connection, under the read lock.
  ///
  /// The read connection never waits for the writer (WAL readers read the last committed state).
  func reading<T>(_ body: (SQLiteConnection) throws(StoreError) -> T) throws(StoreError) -> T {
    readLock.lock()
    defer { readLock.unlock() }
    if reader.isClosed { throw .closed }
    return try body(reader)
  }

  /// The latest committed snapshot of a room, or nil if it has none: its seq, its bytes and the
  /// board JSON saved with it (nil if none was).
  ///
  /// - Complexity: O(log n) plus the snapshot's size.
  public func loadSnapshot(room: String) throws(StoreError) -> (seq: UInt64, bytes: [UInt8], board: [UInt8]?)? {
    try loadSnapshot(room: room, atOrBefore: UInt64(Int64.max))
  }

  /// The latest committed snapshot of a room taken at or before `seq` (the base of the board at
  /// `seq`, `GET …?at=`), or nil if it has none.
  ///
  /// - Complexity: O(log n) plus the snapshot's size.
  public func loadSnapshot(room: String, atOrBefore seq: UInt64) throws(StoreError)
    -> (seq: UInt64, bytes: [UInt8], board: [UInt8]?)?
  {
    try reading { connection throws(StoreError) in
      let query = try connection.statement(
        "SELECT seq, bytes, board FROM snapshots WHERE room = ?1 AND seq <= ?2 ORDER BY seq DESC LIMIT 1")
      defer { query.reset() }
      try query.bind(room, at: 1)
      try query.bind(Int64(min(seq, UInt64(Int64.max))), at: 2)
      guard try query.step() else { return nil }
      return (UInt64(query.int64(0)), query.bytes(1), query.isNull(2) ? nil : query.bytes(2))
    }
  }

  /// Up to `limit` committed ops of a room with seq greater than `seq`, in increasing seq order.
  ///
  /// A `limit` of 0 or less returns nothing.
  /// - Complexity: O(log n + limit).
  public func ops(room: String, after seq: UInt64, limit: Int) throws(StoreError) -> [StoredOp] {
    guard limit > 0, seq < UInt64(Int64.max) else { return [] }
    return try reading { connection throws(StoreError) in
      let query = try connection.statement(
        "SELECT seq, payload FROM ops WHERE room = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3")
      defer { query.reset() }
      try query.bind(room, at: 1)
      try query.bind(Int64(seq), at: 2)
      try query.bind(Int64(limit), at: 3)
      var result: [StoredOp] = []
      while try query.step() {
        result.append(StoredOp(seq: UInt64(query.int64(0)), payload: query.bytes(1)))
      }
      return result
    }
  }

  /// The newest `limit` ops of a room with seq < `before`, in seq order (history reads).
  ///
  /// A `limit` of 0 or less returns nothing.
  /// - Complexity: O(log n + limit).
  public func ops(room: String, before seq: UInt64, limit: Int) throws(StoreError) -> [StoredOp] {
    guard limit > 0 else { return [] }
    return try reading { connection throws(StoreError) in
      let query = try connection.statement(
        "SELECT seq, payload FROM ops WHERE room = ?1 AND seq < ?2 ORDER BY seq DESC LIMIT ?3")
      defer { query.reset() }
      try query.bind(room, at: 1)
      try query.bind(Int64(min(seq, UInt64(Int64.max))), at: 2)
      try query.bind(Int64(limit), at: 3)
      var result: [StoredOp] = []
      while try query.step() {
        result.append(StoredOp(seq: UInt64(query.int64(0)), payload: query.bytes(1)))
      }
      return result.reversed()
    }
  }

  /// The highest committed seq of a room's op log, 0 if it has no ops.
  ///
  /// - Complexity: O(log n).
  public func lastSeq(room: String) throws(StoreError) -> UInt64 {
    try reading { connection throws(StoreError) in
      let query = try connection.statement("SELECT max(seq) FROM ops WHERE room = ?1")
      defer { query.reset() }
      try query.bind(room, at: 1)
      guard try query.step(), !query.isNull(0) else { return 0 }
      return UInt64(query.int64(0))
    }
  }

  /// The names of all rooms that have ops or snapshots, sorted.
  ///
  /// - Complexity: O(rooms).
  public func roomNames() throws(StoreError) -> [String] {
    try reading { connection throws(StoreError) in
      let query = try connection.statement("SELECT name FROM rooms ORDER BY name")
      defer { query.reset() }
      var names: [String] = []
      while try query.step() { names.append(query.text(0)) }
      return names
    }
  }
}
