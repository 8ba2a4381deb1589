import Foundation
import ReorderRedis
import ReorderRooms
import ReorderStore

/// `reorder backup --redis`: every room of cluster mode's Redis, copied into a new SQLite file
/// of the schema a node writes, so that `reorder serve --data DIR` starts from it (as
/// `DIR/reorder.sqlite3`) and `reorder restore --redis` loads it into a Redis
/// (docs/DEPLOY.md, "Backups").
///
/// Each room is read at one instant (`RedisConnection.roomCopy`: meta, snapshot and kept log in
/// one `MULTI`), so a room in the file is one history at one seq while nodes keep writing; rooms
/// are read one after the other, so two rooms may be of different instants (as two rooms are
/// independent histories, nothing relates their seqs).
///
/// What is written per room, as a node on one machine would have it: the log entries, at their
/// seqs, each with the op as it resolved when applied (a cluster log entry holds its maker's view,
/// which is not what a client may apply; every node resolves it again, and so does the backup), a
/// snapshot at the last seq with its board JSON, and the board list's summary. A log that starts
/// at op 1 is written whole, resolved from the empty board. A trimmed one is written from its
/// snapshot on: the entries at or before the snapshot cannot be resolved again (the board before
/// it is gone), so they are left out, with a record carrying only the room's epoch as op 1 (what
/// the Redis store hands a loading node). A `since` before the snapshot then gets the full board,
/// as it does from a node in cluster mode.
public enum ClusterBackup {
  /// What a backup or a restore did: rooms and ops, and the rooms left alone.
  public struct Report: Sendable, Equatable, CustomStringConvertible {
    /// Rooms written.
    public var rooms: Int = 0
    /// Ops written, over all rooms.
    public var ops: Int = 0
    /// Rooms not written, each with why.
    public var skipped: [(room: String, reason: String)] = []

    public static func == (a: Report, b: Report) -> Bool {
      a.rooms == b.rooms && a.ops == b.ops && a.skipped.map(\.room) == b.skipped.map(\.room)
        && a.skipped.map(\.reason) == b.skipped.map(\.reason)
    }

    /// `3 rooms, 412 ops`, then the rooms left alone.
    public var description: String {
      var text = "\(rooms) room\(rooms == 1 ? "" : "s"), \(ops) op\(ops == 1 ? "" : "s")"
      for (room, reason) in skipped { text += "\n  \(room) not copied: \(reason)" }
      return text
    }
  }

  /// Why a backup or a restore failed, and what to do.
  public struct Failure: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
  }

  /// The node id written into the log entries a restore adds (`node` is informational: no node
  /// reads it to decide anything).
  static let restoreNode = "restore"

  /// Copies every room of `redis` (one Redis, or every master of a Redis Cluster) into the new
  /// SQLite file `file`, integrity-checked; nothing is written to Redis.
  /// - Throws: `Failure` when `file` exists, Redis cannot be read, or a room's stored history is
  ///   incomplete; a partly written file is removed.
  public static func backup(redis target: RedisTarget, to file: String) throws -> Report {
    guard !FileManager.default.fileExists(atPath: file) else {
      throw Failure("\(file) exists; back up to a new file")
    }
    let redis = try connect(target)
    defer { redis.close() }
    let staging = file + ".partial-\(getpid())"
    defer { try? FileManager.default.removeItem(atPath: staging) }
    var report = Report()
    let store = try opened(staging)
    do {
      for room in try redisCall({ () throws(RedisError) in try redis.roomNames() }) {
        guard let copy = try redisCall({ () throws(RedisError) in try redis.roomCopy(room: room) }) else {
          report.skipped.append((room, "deleted while the backup ran"))
          continue
        }
        let write = try storedRoom(copy)
        try commit(write, to: store)
        report.rooms += 1
        if case .replace(_, let ops, _, _) = write { report.ops += ops.count }
      }
      store.close()
    } catch {
      store.close()
      throw error
    }
    do {
      try Store.backup(directory: staging, to: file)
    } catch {
      throw Failure("\(error)")
    }
    return report
  }

  /// The whole-room write that stores `copy` as a node on one machine would hold it.
  /// - Throws: `Failure` when the copy is incomplete or a record or the snapshot cannot be read.
  static func storedRoom(_ copy: ClusterRoomCopy) throws -> BoardWrite {
    let room = copy.room
    guard copy.isComplete, let epoch = copy.meta.epoch else {
      throw Failure("room \(room): its log in Redis has a gap before seq \(copy.meta.seq) and no snapshot covers it")
    }
    do {
      let fromStart = copy.entries.first?.seq == 1
      let boards = CRDTRoomBoard.factory
      let base = fromStart ? 0 : copy.snapshot?.seq ?? 0
      var board = try fromStart ? boards.empty() : boards.restore(copy.snapshot!.bytes)
      var ops: [StoredOp] = []
      ops.reserveCapacity(copy.entries.count + 1)
      if !fromStart {
        var record = OpRecord(id: "", client: "", by: "", resolved: .null, logged: [])
        record.epoch = epoch
        ops.append(StoredOp(seq: 1, payload: record.encoded()))
      }
      for entry in copy.entries {
        guard entry.seq > base else { continue }
        var record = try OpRecord(payload: entry.op)
        record.resolved = try board.applyLogged(record.logged)
        // As every replica did: later ops were made on the board compacted here.
        if RoomNode.compacts(after: record, seq: entry.seq, every: RoomNode.compactionInterval) {
          board.compact()
        }
        ops.append(StoredOp(seq: entry.seq, payload: record.encoded()))
      }
      let seq = copy.meta.seq
      let snapshot = StoredSnapshot(seq: seq, bytes: board.snapshot(), board: board.encodedBoardJSON())
      let summary = RoomSummary(epoch: epoch, seq: seq, lists: board.listCount, items: board.itemCount)
      return .replace(room: room, ops: ops, snapshot: snapshot, summary: summary)
    } catch let failure as Failure {
      throw failure
    } catch {
      throw Failure("room \(room): \(error)")
    }
  }

  /// Writes `write` and waits until it is committed.
  static func commit(_ write: BoardWrite, to store: Store) throws {
    let answer = Answer<Result<BoardWriteResult, StoreError>>()
    store.write(write) { answer.set($0) }
    switch answer.wait(timeoutSeconds: 600) {
    case .success?: return
    case .failure(let error)?: throw Failure("\(error)")
    case nil: throw Failure("the database did not commit within 10 minutes")
    }
  }

  /// A store in `directory` (created), or a `Failure` saying why not.
  static func opened(_ directory: String) throws -> Store {
    do {
      return try Store(path: directory)
    } catch {
      throw Failure("\(error)")
    }
  }

  /// The Redis the tool's flags name (`--redis`, or `--redis-cluster`'s seeds), with the password
  /// of `passwordFile` and the ACL `user`.
  /// - Throws: `Failure` when the flags do not go together, or name no Redis.
  public static func target(redis: String?, cluster: String?, user: String?, passwordFile: String?) throws
    -> RedisTarget
  {
    do {
      guard let target = try RedisTarget(redis: redis, cluster: cluster, user: user, passwordFile: passwordFile)
      else { throw Failure("--redis or --redis-cluster is required") }
      return target
    } catch let error as RedisError {
      throw Failure(error.description)
    }
  }

  /// A connection to `target` (one per master of a Redis Cluster); generous timeouts, as one reply
  /// may hold a whole room's log.
  static func connect(_ target: RedisTarget) throws -> any RedisCommands {
    do {
      return try target.commands(timeouts: RedisTimeouts(connectSeconds: 5, commandSeconds: 120))
    } catch {
      throw Failure(error.description)
    }
  }

  /// Runs a Redis call; its error becomes a `Failure` in Redis' words.
  static func redisCall<T>(_ body: () throws(RedisError) -> T) throws -> T {
    do {
      return try body()
    } catch {
      throw Failure(error.description)
    }
  }
}
