@testable import ReorderRooms

/// A test double of the cluster's SHARED LOG with the contract's semantics (docs/CLUSTER.md): per
/// room an entry log with gap-free seqs, the meta epoch and seq, the op ids, the latest snapshot,
/// and `reorder_append_ops`'s rules (epoch check, first op creates the room, known keys answer their
/// seq; an op whose seq would pass its `until` is refused `stale`, unrecorded). Plus the presence channel's messages and the roster's entries. No time, no threads.
final class FakeSharedLog {
  struct RoomLog {
    var epoch: String?
    var entries: [AppendedEntry] = []
    var ids: [[UInt8]: UInt64] = [:]
    var snapshot: RoomSnapshot?
    var roster: [String: [UInt8]] = [:]
    var seq: UInt64 { entries.last?.seq ?? 0 }
  }

  var rooms: [String: RoomLog] = [:]
  /// False: every call fails `unavailable` (Redis unreachable).
  var available = true
  /// Appends that reached the log (applied or known), for counting.
  var appendCalls = 0
  /// Appends refused `stale`.
  var staleRefusals = 0

  /// `FCALL reorder_append_ops`.
  func append(_ a: LogAppend) -> Result<AppendReply, LogError> {
    guard available else { return .failure(.unavailable("connection refused")) }
    appendCalls += 1
    var log = rooms[a.room] ?? RoomLog()
    if let epoch = log.epoch, epoch != a.epoch { return .failure(.epoch(epoch)) }
    if log.epoch == nil {
      guard a.creates else { return .failure(.epoch("")) }
      log.epoch = a.epoch
    }
    if let known = log.ids[a.key] {
      rooms[a.room] = log
      return .success(.known(known))
    }
    let seq = log.seq + 1
    if a.until > 0 && seq > a.until {
      staleRefusals += 1
      rooms[a.room] = log
      return .failure(.stale(a.until))
    }
    log.entries.append(AppendedEntry(seq: seq, node: a.node, key: a.key, payload: a.payload))
    log.ids[a.key] = seq
    rooms[a.room] = log
    return .success(.applied(seq))
  }

  /// `XRANGE reorder:{R}:log <after+1>-1 <through>-1`.
  func range(room: String, after: UInt64, through: UInt64) -> Result<[AppendedEntry], LogError> {
    guard available else { return .failure(.unavailable("connection refused")) }
    return .success((rooms[room]?.entries ?? []).filter { $0.seq > after && $0.seq <= through })
  }

  /// Entries after `seq` (what `XREAD` from `<seq>-1` returns), at most `limit`.
  func entries(room: String, after seq: UInt64, limit: Int = .max) -> [AppendedEntry] {
    Array((rooms[room]?.entries ?? []).lazy.filter { $0.seq > seq }.prefix(limit))
  }

  /// What a node's load reads: the snapshot, the remembered ops before it, every op after it,
  /// and op 1.
  func history(room: String, remembering: Int) -> RoomHistory {
    guard let log = rooms[room] else { return .empty }
    var history = RoomHistory.empty
    history.snapshot = log.snapshot
    let at = log.snapshot?.seq ?? 0
    history.remembered = Array(log.entries.filter { $0.seq <= at }.suffix(remembering).map(\.logEntry))
    history.after = log.entries.filter { $0.seq > at }.map(\.logEntry)
    history.first = log.entries.first { $0.seq == 1 }?.logEntry
    return history
  }

  /// The lease holder's snapshot write (a later one replaces an earlier one).
  func saveSnapshot(room: String, seq: UInt64, bytes: [UInt8]) {
    guard available, seq > (rooms[room]?.snapshot?.seq ?? 0) else { return }
    rooms[room, default: RoomLog()].snapshot = RoomSnapshot(seq: seq, bytes: bytes)
  }

  /// Forgets the log before the snapshot (`XTRIM MINID`), keeping the last `keep` entries before it.
  func trim(room: String, keep: Int) {
    guard let at = rooms[room]?.snapshot?.seq else { return }
    let before = rooms[room]!.entries.filter { $0.seq <= at }
    let drop = Set(before.dropLast(keep).map(\.seq))
    rooms[room]!.entries.removeAll { drop.contains($0.seq) }
  }
}
