import Foundation
import ReorderRedis
import ReorderRooms
import ReorderStore

/// `reorder restore --redis`: the rooms of a SQLite file (`reorder backup`'s, with or without
/// `--redis`, or a node's `reorder.sqlite3`) loaded into cluster mode's Redis (docs/DEPLOY.md,
/// "Backups").
extension ClusterBackup {
  /// Loads every room of the SQLite file `file` into `redis` (one Redis, or a Redis Cluster: each
  /// room on its slot's master). Rooms that have a history in Redis already are refused, before anything is
  /// written, unless `replace`; with it their history becomes the file's. Each room is written in
  /// one step (`RedisConnection.putRoomCopy`) and listed in the board list with its summary.
  ///
  /// What a room becomes: its epoch and last seq are the file's, its log is the file's ops from
  /// the first of those that run without a gap to the last (op 1 and the ops after the latest
  /// snapshot at least: a node keeps op 1 and the windows before the snapshot), its snapshot the
  /// file's latest. A node that opens it welcomes the board and seq the file holds.
  /// - Throws: `Failure` naming the rooms that exist without `replace`, a file that is not a
  ///   Reorder database, a room whose ops do not reach its snapshot, or Redis' error.
  public static func restore(redis target: RedisTarget, from file: String, replace: Bool) throws
    -> Report
  {
    guard FileManager.default.fileExists(atPath: file) else { throw Failure("\(file) does not exist") }
    // The store opens a data directory (and may migrate its database): it reads a copy.
    let staging = file + ".restore-\(getpid())"
    defer { try? FileManager.default.removeItem(atPath: staging) }
    do {
      try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: false)
      try FileManager.default.copyItem(atPath: file, toPath: staging + "/" + Store.databaseFileName)
    } catch {
      throw Failure("cannot copy \(file) to read it: \(error.localizedDescription)")
    }
    let store = try opened(staging)
    defer { store.close() }
    let rooms = try stored { () throws(StoreError) in try store.roomNames() }
    let redis = try connect(target)
    defer { redis.close() }
    let epochs = try redisCall { () throws(RedisError) in try redis.epochs(rooms: rooms) }
    let existing = rooms.filter { (epochs[$0] ?? nil) != nil }
    if !existing.isEmpty && !replace {
      throw Failure(
        "\(existing.count) room\(existing.count == 1 ? "" : "s") of the file already in Redis: "
          + existing.prefix(20).joined(separator: ", ") + (existing.count > 20 ? ", …" : "")
          + ". Nothing was restored; give --replace to overwrite them with the file's")
    }
    var report = Report()
    for room in rooms {
      guard let (copy, summary) = try redisRoom(room, in: store) else {
        report.skipped.append((room, "no ops in the file"))
        continue
      }
      let outcome = try redisCall { () throws(RedisError) in
        try redis.putRoomCopy(copy, replace: replace, node: restoreNode)
      }
      guard outcome != .exists else {
        report.skipped.append((room, "made in Redis while the restore ran; kept as it is"))
        continue
      }
      let now = Int64((Date().timeIntervalSince1970 * 1_000).rounded())
      _ = try redisCall { () throws(RedisError) in
        try redis.putSummary(
          room: room,
          ClusterSummary(
            epoch: summary.epoch, seq: summary.seq, lists: summary.lists, items: summary.items, updatedMilliseconds: now
          ))
      }
      report.rooms += 1
      report.ops += copy.entries.count
    }
    return report
  }

  /// `room` of `store` as Redis holds a room, and its summary; nil when it has no ops.
  /// - Throws: `Failure` when it cannot be read or its ops do not reach its snapshot.
  static func redisRoom(_ room: String, in store: Store) throws -> (ClusterRoomCopy, BoardSummary)? {
    var ops: [StoredOp] = []
    var after: UInt64 = 0
    while true {
      let page = try stored { () throws(StoreError) in try store.ops(room: room, after: after, limit: 1_000) }
      guard let last = page.last else { break }
      ops += page
      after = last.seq
    }
    let snapshot = try stored { () throws(StoreError) in try store.loadSnapshot(room: room) }
    guard !ops.isEmpty else { return nil }
    let lastSeq = max(ops.last!.seq, snapshot?.seq ?? 0)
    // The room as a node opens it: it decodes, and its epoch, seq and figures are the file's.
    let history = RoomHistory(
      snapshot: snapshot.map { RoomSnapshot(seq: $0.seq, bytes: $0.bytes) },
      remembered: ops.filter { $0.seq <= snapshot?.seq ?? 0 }.map { LogEntry(seq: $0.seq, payload: $0.payload) },
      after: ops.filter { $0.seq > snapshot?.seq ?? 0 }.map { LogEntry(seq: $0.seq, payload: $0.payload) },
      first: ops.first.flatMap { $0.seq == 1 ? LogEntry(seq: 1, payload: $0.payload) : nil })
    let prepared: PreparedRoom
    do {
      prepared = try RoomLoad(room: room, boards: CRDTRoomBoard.factory).prepare(history)
    } catch {
      throw Failure("room \(room) of the file cannot be opened: \(error)")
    }
    // The run of ops without a gap that ends at the last seq (a node's trimmed log keeps op 1,
    // then the windows before its snapshot; a backup of a trimmed Redis log, op 1's stand-in and
    // the ops after the snapshot): Redis keeps a log without gaps. None when the snapshot is at
    // the last seq and no op is.
    var start = ops.count
    if ops.last!.seq == lastSeq {
      start -= 1
      while start > 0 && ops[start - 1].seq + 1 == ops[start].seq { start -= 1 }
    }
    // Op 1's stand-in (only the epoch, no op) is not an op of the log: the meta holds the epoch.
    if start == 0, let first = try? OpRecord(payload: ops[0].payload), first.logged.isEmpty, ops.count > 1 {
      start = 1
    }
    var entries: [ClusterLogEntry] = []
    entries.reserveCapacity(ops.count - start)
    for op in ops[start...] {
      guard let key = try? OpRecord.key(payload: op.payload) else {
        throw Failure("room \(room): op \(op.seq) of the file has no readable record")
      }
      entries.append(ClusterLogEntry(seq: op.seq, node: restoreNode, key: Array(key.utf8), op: op.payload))
    }
    let meta = ClusterRoomMeta(
      epoch: prepared.epoch, seq: lastSeq, snapshotSeq: snapshot?.seq ?? 0,
      trimmedSeq: (entries.first?.seq ?? lastSeq + 1) - 1)
    let copy = ClusterRoomCopy(
      room: room, meta: meta, snapshot: snapshot.map { ClusterSnapshot(seq: $0.seq, bytes: $0.bytes) },
      entries: entries)
    guard copy.isComplete else {
      throw Failure("room \(room): the file's ops after seq \(meta.trimmedSeq) do not reach back to its snapshot")
    }
    return (copy, prepared.summary)
  }

  /// Runs a store read; its error becomes a `Failure` in the store's words.
  static func stored<T>(_ body: () throws(StoreError) -> T) throws -> T {
    do {
      return try body()
    } catch {
      throw Failure("\(error)")
    }
  }
}
