/// Whole rooms read and written in one step each: what `reorder backup --redis` and
/// `reorder restore --redis` move between Redis and a backup file (docs/DEPLOY.md, "Backups").
extension RedisCommands {
  /// Every room with a meta hash (`SCAN … MATCH reorder:{*}:meta`), sorted: the rooms that have a
  /// history. A room made or deleted during the scan may or may not be in it.
  public func roomNames() throws(RedisError) -> [String] {
    var names: Set<String> = []
    try forEachNode { (node) throws(RedisError) in
      var cursor = "0"
      repeat {
        let reply = try node.command("SCAN", cursor, "MATCH", "reorder:{*}:meta", "COUNT", 1_000)
        guard let parts = reply.elements, parts.count == 2, let next = parts[0].text, let keys = parts[1].elements
        else { throw .unexpectedReply(command: "SCAN", reply: reply.description) }
        for key in keys {
          guard let text = key.text, text.hasPrefix("reorder:{"), text.hasSuffix("}:meta") else { continue }
          names.insert(String(text.dropFirst("reorder:{".count).dropLast("}:meta".count)))
        }
        cursor = next
      } while cursor != "0"
    }
    return names.sorted()
  }

  /// The room's meta, snapshot and whole kept log, read at one instant (`MULTI` … `EXEC`: no
  /// append, trim, snapshot or whole-board write of another client falls between the three
  /// reads); nil when the room has no history. One reply holds the whole log, which is bounded by
  /// the windows the lease holder keeps (docs/CLUSTER.md, "Snapshots and trimming").
  public func roomCopy(room: String) throws(RedisError) -> ClusterRoomCopy? {
    let keys = ClusterKeys(room: room)
    let replies = try pipeline(
      key: ClusterKeys(room: room).meta,
      [
        ["MULTI"], ["HMGET", keys.meta, "epoch", "seq", "snapshot_seq", "trimmed_seq"],
        ["HMGET", keys.snapshot, "seq", "bytes"], ["XRANGE", keys.log, "-", "+"], ["EXEC"],
      ])
    for case .error(let message) in replies { throw .server(command: "MULTI", message: message) }
    guard let results = replies[4].elements, results.count == 3, let meta = results[0].elements, meta.count == 4,
      let snapshot = results[1].elements, snapshot.count == 2
    else { throw .unexpectedReply(command: "EXEC", reply: replies[4].description) }
    func number(_ reply: RedisReply) -> UInt64 { reply.integer.map { UInt64(max(0, $0)) } ?? 0 }
    let roomMeta = ClusterRoomMeta(
      epoch: meta[0].text, seq: number(meta[1]), snapshotSeq: number(meta[2]), trimmedSeq: number(meta[3]))
    guard roomMeta.epoch != nil, roomMeta.seq > 0 else { return nil }
    var stored: ClusterSnapshot?
    if let seq = snapshot[0].integer, let bytes = snapshot[1].bytes {
      stored = ClusterSnapshot(seq: UInt64(seq), bytes: bytes)
    }
    return ClusterRoomCopy(
      room: room, meta: roomMeta, snapshot: stored, entries: try ClusterReplies.entries(results[2], command: "XRANGE"))
  }

  /// Writes `copy` as the room's history in one step (a script): its log entries at their seqs
  /// with their op ids, its meta (`trimmed_seq` is the seq before the first entry) and its
  /// snapshot. A room that has ops keeps them unless `replace`; otherwise its log, op ids, meta,
  /// snapshot and summary are the copy's afterwards. Entries are written with `node` and the
  /// copy's epoch; the copy must be `isComplete`.
  public func putRoomCopy(_ copy: ClusterRoomCopy, replace: Bool, node: String) throws(RedisError) -> BoardPutOutcome {
    precondition(copy.isComplete, "a room copy holds a whole history")
    let keys = ClusterKeys(room: copy.room)
    let trimmed = (copy.entries.first?.seq ?? copy.meta.seq + 1) - 1
    var arguments: [any RedisArgument] = [
      "EVAL", ClusterScripts.putRoomCopy, 5, keys.log, keys.meta, keys.ids, keys.snapshot, keys.summary,
      copy.meta.epoch ?? "", replace ? "1" : "0", node, copy.meta.seq, trimmed, copy.snapshot?.seq ?? 0,
      copy.snapshot?.bytes ?? [],
    ]
    arguments.reserveCapacity(arguments.count + 3 * copy.entries.count)
    for entry in copy.entries { arguments += [entry.seq, entry.key, entry.op] }
    let reply = try command(key: keys.meta, arguments)
    switch reply.text {
    case "created": return .created
    case "replaced": return .replaced
    case "exists": return .exists
    default: throw .unexpectedReply(command: "EVAL putRoomCopy", reply: reply.description)
    }
  }
}

/// One room as `roomCopy` read it: its meta, latest snapshot and kept log, all of one instant.
public struct ClusterRoomCopy: Sendable, Equatable {
  /// The room.
  public var room: String
  /// Its meta (epoch never nil, seq at least 1, in a copy `roomCopy` returns).
  public var meta: ClusterRoomMeta
  /// Its latest snapshot, if any.
  public var snapshot: ClusterSnapshot?
  /// Its log, in seq order: the entries after `meta.trimmedSeq` up to `meta.seq`.
  public var entries: [ClusterLogEntry]

  /// A copy of `room`.
  public init(room: String, meta: ClusterRoomMeta, snapshot: ClusterSnapshot?, entries: [ClusterLogEntry]) {
    self.room = room
    self.meta = meta
    self.snapshot = snapshot
    self.entries = entries
  }

  /// Whether the copy holds a whole history: its entries run one by one up to `meta.seq`, and
  /// they start at op 1 or right after the snapshot's seq or before (a trimmed log).
  public var isComplete: Bool {
    guard zip(entries, entries.dropFirst()).allSatisfy({ $0.seq + 1 == $1.seq }) else { return false }
    guard (entries.last?.seq ?? meta.seq) == meta.seq else { return false }
    let from = entries.first?.seq ?? meta.seq + 1
    if from == 1 { return true }
    guard let snapshot else { return false }
    return snapshot.seq <= meta.seq && snapshot.seq + 1 >= from
  }
}
