import Foundation
import ReorderBasics
import ReorderRedis
import ReorderRooms

/// The rooms' storage port (`RoomStore`) over the shared Redis of cluster mode (docs/CLUSTER.md).
///
/// Loads read the latest snapshot and the log after it (`XRANGE`), catch-up reads the log; both
/// run on a queue of this adapter with a connection of its own, never the service thread. A
/// snapshot is written only by the holder of the room's lease (`reorder_lease_acquire`, `SET NX
/// PX`, which renews it for its holder, so each snapshot renews it), which then trims the log and
/// the op ids below the windows before the snapshot. It appends no ops (it is no `RoomLogStore`):
/// they go to the shared log through `ClusterAppender`.
public final class RedisRoomStorage: RoomStore, BoardWrites, @unchecked Sendable {
  /// The log's records hold the maker's view of each op: every replica resolves them.
  public static let keepsResolvedOps = false
  private let link: RedisLink
  private let node: String
  /// Ops kept before each snapshot: the catch-up and the idempotency window.
  private let retainedOps: Int
  private let health: ClusterHealth
  /// Whether the nodes wait for replicas: then only the log up to each room's replicated
  /// watermark is read (`ClusterRoomMeta.watermark`), so no node loads an op a failover could
  /// take back.
  private let gated: Bool
  /// One call at a time on the link (a `RedisLink` serves one thread at a time).
  private let queue = BackgroundQueue.make(name: "reorder-redis-store")

  /// How long a snapshot lease lasts; its holder renews it with each snapshot, so another node
  /// takes it over once the holder stopped snapshotting for this long.
  static let leaseMilliseconds = 30_000

  init(link: RedisLink, node: String, retainedOps: Int, gated: Bool = false, health: ClusterHealth) {
    self.link = link
    self.gated = gated
    self.node = node
    self.retainedOps = retainedOps
    self.health = health
  }

  /// A load reads the room's snapshot and log in several calls; a whole-board write (`PUT`
  /// replacing it, `DELETE`) between them would mix two histories. So the room's epoch is read
  /// before and after, and a load that saw it change is read again (at most `loadAttempts` times,
  /// then `unavailable`): epochs are random and never reused, so an equal epoch means one history.
  /// When op 1 was trimmed, a record carrying only the log's epoch stands in for it
  /// (`RoomHistory.first`: the rooms read only its epoch), so a loaded room knows its epoch.
  public func load(
    room: String, remembering: Int, completion: @escaping @Sendable (Result<RoomHistory, RoomStoreError>) -> Void
  ) {
    queue.async { [self] in
      completion(Result { () throws(RoomStoreError) in try consistentHistory(room: room, remembering: remembering) })
    }
  }

  /// Tries of a load that a whole-board write interrupted.
  static let loadAttempts = 5

  private func consistentHistory(room: String, remembering: Int) throws(RoomStoreError) -> RoomHistory {
    for _ in 0..<Self.loadAttempts {
      let before = try epoch(room: room)
      var history = try RoomHistory.read(
        remembering: remembering,
        snapshot: { () throws(RoomStoreError) in
          try self.call { (redis) throws(RedisError) in
            try redis.snapshot(room: room).map { RoomSnapshot(seq: $0.seq, bytes: $0.bytes) }
          }
        },
        entries: { after, limit throws(RoomStoreError) in try self.entries(room: room, after: after, limit: limit) }
      )
      guard try epoch(room: room) == before else { continue }
      if history.first?.seq != 1, let before, history.snapshot != nil {
        var record = OpRecord(id: "", client: "", by: "", resolved: .null, logged: [])
        record.epoch = before
        history.first = LogEntry(seq: 1, payload: record.encoded())
      }
      return history
    }
    throw .unavailable("room \(room) changed while it was being loaded; try again")
  }

  private func epoch(room: String) throws(RoomStoreError) -> String? {
    try call { (redis) throws(RedisError) in try redis.meta(room: room).epoch }
  }

  public func saveSnapshot(
    room: String, snapshot: RoomSnapshot, completion: @escaping @Sendable (Result<Void, RoomStoreError>) -> Void
  ) {
    queue.async { [self] in
      completion(
        Result { () throws(RoomStoreError) in
          try call { (redis) throws(RedisError) in
            guard try redis.acquireLease(room: room, node: node, milliseconds: Self.leaseMilliseconds) else { return }
            guard try redis.putSnapshot(room: room, seq: snapshot.seq, bytes: snapshot.bytes) else { return }
            // Keep the windows before the snapshot (catch-up, idempotency), from their base: the
            // latest kept snapshot at or before them, so that every kept entry's board can be
            // rebuilt. Older entries, their op ids and the snapshots before the base go, in steps
            // so that one call never holds Redis for long. A room with no base that old (one
            // stored before bases were kept) is trimmed to the windows alone.
            guard snapshot.seq > UInt64(retainedOps) else { return }
            let boundary = snapshot.seq - UInt64(retainedOps)
            let bases = try redis.baseSeqs(room: room)
            let base = bases.last { $0 <= boundary }
            let keep = (base ?? boundary) + 1
            guard keep >= 2 else { return }
            while try redis.trim(room: room, keepFrom: keep, count: 1_000).removed == 1_000 {}
            if let base { try redis.dropBases(room: room, seqs: bases.filter { $0 < base }) }
          }
        })
    }
  }

  public func entries(
    room: String, after: UInt64, limit: Int,
    completion: @escaping @Sendable (Result<[LogEntry], RoomStoreError>) -> Void
  ) {
    queue.async { [self] in
      completion(Result { () throws(RoomStoreError) in try entries(room: room, after: after, limit: limit) })
    }
  }

  /// The latest of the room's kept snapshots (`bases`) at or before `seq`; for a room stored
  /// before bases were kept, its one snapshot when that is at or before `seq`.
  public func snapshot(
    room: String, atOrBefore seq: UInt64,
    completion: @escaping @Sendable (Result<RoomSnapshot?, RoomStoreError>) -> Void
  ) {
    queue.async { [self] in
      completion(
        Result { () throws(RoomStoreError) in
          try call { (redis) throws(RedisError) in
            if let base = try redis.baseSeqs(room: room).last(where: { $0 <= seq }),
              let bytes = try redis.base(room: room, seq: base)
            {
              return RoomSnapshot(seq: base, bytes: bytes)
            }
            return try redis.snapshot(room: room).flatMap {
              $0.seq <= seq ? RoomSnapshot(seq: $0.seq, bytes: $0.bytes) : nil
            }
          }
        })
    }
  }

  public func latestEntries(
    room: String, before: UInt64, limit: Int,
    completion: @escaping @Sendable (Result<[LogEntry], RoomStoreError>) -> Void
  ) {
    queue.async { [self] in
      completion(
        Result { () throws(RoomStoreError) in
          try call { (redis) throws(RedisError) in
            let watermark = gated ? try redis.meta(room: room).watermark : UInt64.max
            return try redis.latestEntries(room: room, before: min(before, watermark + 1), limit: max(1, limit)).map {
              LogEntry(seq: $0.seq, payload: $0.op)
            }
          }
        })
    }
  }

  public func roomNames(completion: @escaping @Sendable (Result<[String], RoomStoreError>) -> Void) {
    queue.async { [self] in
      completion(
        Result { () throws(RoomStoreError) in
          try call { (redis) throws(RedisError) in try Self.scanRooms(redis) }
        })
    }
  }

  /// Writes a whole board as `room`'s new history (`reorder_board_put`), unless it has ops and
  /// `replace` is false: ops 1…n (`entries`, keyed by their records' op ids), `epoch` and the
  /// snapshot, in one step. The API's `PUT` in cluster mode. A board written is then listed with
  /// `summary` (`putSummary`) so the board list shows it before any lease holder writes one; a
  /// failure of that second step is logged, not returned (the board is stored; the room's lease
  /// holder lists it at its next change).
  public func putBoard(
    room: String, epoch: String, replace: Bool, entries: [LogEntry], snapshot: RoomSnapshot, summary: BoardSummary,
    completion: @escaping @Sendable (Result<BoardPut, RoomStoreError>) -> Void
  ) {
    queue.async { [self] in
      completion(
        Result { () throws(RoomStoreError) in
          var ops: [(key: [UInt8], payload: [UInt8])] = []
          ops.reserveCapacity(entries.count)
          for entry in entries {
            guard let key = try? OpRecord.key(payload: entry.payload) else {
              throw .corrupt("an op of the board has no readable record")
            }
            ops.append((Array(key.utf8), entry.payload))
          }
          return try call { (redis) throws(RedisError) in
            let outcome = try redis.putBoard(
              room: room, epoch: epoch, replace: replace, node: node, ops: ops, snapshot: snapshot.bytes)
            if outcome != .exists {
              Self.list(room, ClusterSummary(summary, updatedMilliseconds: Self.wallMilliseconds()), redis)
            }
            switch outcome {
            case .created: return .created
            case .replaced: return .replaced
            case .exists: return .exists
            }
          }
        })
    }
  }

  /// Deletes every key of `room` if it has ops (`reorder_board_delete`): whether it had. The API's
  /// `DELETE` in cluster mode.
  public func deleteBoard(room: String, completion: @escaping @Sendable (Result<Bool, RoomStoreError>) -> Void) {
    queue.async { [self] in
      completion(
        Result { () throws(RoomStoreError) in
          try call { (redis) throws(RedisError) in
            let deleted = try redis.deleteBoard(room: room)
            if deleted { Self.unlist(room, redis) }
            return deleted
          }
        })
    }
  }

  /// Lists a board just written in the board list's directory, with its figures.
  private static func list(_ room: String, _ summary: ClusterSummary, _ redis: any RedisCommands) {
    do {
      _ = try redis.putSummary(room: room, summary)
    } catch {
      Log.log(.warn, "board not listed", [("room", room), ("error", "\(error)")])
    }
  }

  /// Takes a deleted board out of the board list's directory (not a key of the room, so the
  /// delete function leaves it).
  private static func unlist(_ room: String, _ redis: any RedisCommands) {
    do {
      try redis.removeFromDirectory(room: room)
    } catch {
      Log.log(.warn, "deleted board still listed", [("room", room), ("error", "\(error)")])
    }
  }

  private static func wallMilliseconds() -> Int64 { Int64((Date().timeIntervalSince1970 * 1_000).rounded()) }

  /// Every room with a meta hash (`RedisCommands.roomNames`), sorted.
  private static func scanRooms(_ redis: any RedisCommands) throws(RedisError) -> [String] { try redis.roomNames() }

  private func entries(room: String, after: UInt64, limit: Int) throws(RoomStoreError) -> [LogEntry] {
    try call { (redis) throws(RedisError) in
      let watermark = gated ? try redis.meta(room: room).watermark : UInt64.max
      return try redis.entries(room: room, after: after, limit: max(1, limit)).prefix { $0.seq <= watermark }.map {
        LogEntry(seq: $0.seq, payload: $0.op)
      }
    }
  }

  /// Runs `body` on the link; a Redis error becomes the port's `unavailable` (retry later), and
  /// the health of this part follows the outcome.
  private func call<T>(_ body: (any RedisCommands) throws(RedisError) -> T) throws(RoomStoreError) -> T {
    do {
      let value = try link.run(body)
      health.succeeded(.storage)
      return value
    } catch {
      health.failed(.storage, error)
      throw .unavailable(error.description)
    }
  }
}

extension ClusterSummary {
  /// The Redis summary of a board's figures, changed at `updatedMilliseconds` (ms since the epoch).
  init(_ summary: BoardSummary, updatedMilliseconds: Int64) {
    self.init(
      epoch: summary.epoch, seq: summary.seq, lists: summary.lists, items: summary.items,
      updatedMilliseconds: updatedMilliseconds)
  }
}
