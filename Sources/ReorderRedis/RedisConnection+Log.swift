/// The log of a room: the library, appends, ranges, tails and trims (docs/CLUSTER.md).
extension RedisConnection {
  /// Loads (or replaces) the function library `reorder`; its name as Redis reports it.
  @discardableResult
  public func loadFunctions() throws(RedisError) -> String {
    let reply = try command("FUNCTION", "LOAD", "REPLACE", ClusterFunctions.source)
    guard let name = reply.text else { throw .unexpectedReply(command: "FUNCTION LOAD", reply: reply.description) }
    return name
  }

  /// Appends one op with `reorder_append` (any seq: no `until`): its seq, the seq it already had,
  /// or the room's epoch when it differs from `epoch`.
  public func append(room: String, epoch: String, key: [UInt8], node: String, payload: [UInt8])
    throws(RedisError) -> AppendOutcome
  {
    try append([ClusterAppend(room: room, epoch: epoch, key: key, node: node, payload: payload)])[0]
  }

  /// Appends several ops in one round trip (pipelined `reorder_append` calls), in order. When it
  /// throws, some of them may be in the log: appending them again is safe (same keys, same seqs).
  /// An epoch is printable text (it comes back in an error reply, which holds no control bytes).
  public func append(_ ops: [ClusterAppend]) throws(RedisError) -> [AppendOutcome] {
    precondition(
      ops.allSatisfy { $0.epoch.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F } },
      "an epoch is printable text")
    let replies = try pipeline(
      ops.map { op in
        let keys = ClusterKeys(room: op.room)
        return [
          "FCALL", ClusterFunctions.append, 3, keys.log, keys.meta, keys.ids, op.epoch, op.key, op.node, op.payload,
          op.creates ? "1" : "0", op.until,
        ]
      })
    var outcomes: [AppendOutcome] = []
    outcomes.reserveCapacity(replies.count)
    for reply in replies {
      let command = "FCALL " + ClusterFunctions.append
      switch reply {
      case .error(let message) where message.hasPrefix("EPOCH "):
        outcomes.append(.epochMismatch(current: String(message.dropFirst("EPOCH ".count))))
      case .error(let message) where message.hasPrefix("STALE "):
        guard let until = UInt64(message.dropFirst("STALE ".count)) else {
          throw .unexpectedReply(command: command, reply: reply.description)
        }
        outcomes.append(.stale(until: until))
      case .error(let message):
        throw .server(command: command, message: message)
      case .array(let parts) where parts.count == 2:
        guard let seq = parts[0].integer, seq > 0 else {
          throw .unexpectedReply(command: command, reply: reply.description)
        }
        switch parts[1].text {
        case "applied": outcomes.append(.applied(seq: UInt64(seq)))
        case "known": outcomes.append(.known(seq: UInt64(seq)))
        default: throw .unexpectedReply(command: command, reply: reply.description)
        }
      default:
        throw .unexpectedReply(command: command, reply: reply.description)
      }
    }
    return outcomes
  }

  /// The entries of `room` after `seq`, in seq order, at most `limit` (XRANGE): how a node fills
  /// a gap. Entries at or below the room's `trimmedSeq` are gone; read the snapshot instead.
  public func entries(room: String, after seq: UInt64, limit: Int = 1000) throws(RedisError) -> [ClusterLogEntry] {
    precondition(limit > 0, "a range needs a positive limit")
    let reply = try command("XRANGE", ClusterKeys(room: room).log, "\(seq + 1)-0", "+", "COUNT", limit)
    return try Self.entries(reply, command: "XRANGE")
  }

  /// The newest entries of `room` below `seq`, at most `limit`, in seq order (XREVRANGE).
  public func latestEntries(room: String, before seq: UInt64, limit: Int) throws(RedisError) -> [ClusterLogEntry] {
    precondition(limit > 0, "a range needs a positive limit")
    guard seq > 1 else { return [] }
    let reply = try command("XREVRANGE", ClusterKeys(room: room).log, "(\(seq)-0", "-", "COUNT", limit)
    return try Self.entries(reply, command: "XREVRANGE").reversed()
  }

  /// Waits up to `blockMilliseconds` for entries after each room's seq (XREAD BLOCK on this
  /// connection, which should be one of its own): the entries that came, per room, at most
  /// `count` per room; empty when none came in time (or no room was given).
  public func tail(_ positions: [String: UInt64], blockMilliseconds: Int, count: Int = 1000)
    throws(RedisError) -> [String: [ClusterLogEntry]]
  {
    precondition(blockMilliseconds > 0, "XREAD BLOCK 0 would wait forever")
    guard !positions.isEmpty else { return [:] }
    let rooms = positions.keys.sorted()
    var arguments: [any RedisArgument] = ["XREAD", "COUNT", count, "BLOCK", blockMilliseconds, "STREAMS"]
    var roomOfKey: [String: String] = [:]
    for room in rooms {
      let key = ClusterKeys(room: room).log
      roomOfKey[key] = room
      arguments.append(key)
    }
    for room in rooms { arguments.append("\(positions[room]!)-1") }
    let reply = try blockingCommand(arguments, waitSeconds: Double(blockMilliseconds) / 1000)
    if reply.isNull { return [:] }
    guard let streams = reply.elements else { throw .unexpectedReply(command: "XREAD", reply: reply.description) }
    var result: [String: [ClusterLogEntry]] = [:]
    for stream in streams {
      guard let parts = stream.elements, parts.count == 2, let key = parts[0].text, let room = roomOfKey[key] else {
        throw .unexpectedReply(command: "XREAD", reply: stream.description)
      }
      result[room] = try Self.entries(parts[1], command: "XREAD")
    }
    return result
  }

  /// Removes the entries of `room` below `keep` and their op ids, at most `count` per call
  /// (`reorder_trim`, then `XTRIM MINID`); repeat while `removed == count`.
  public func trim(room: String, keepFrom keep: UInt64, count: Int = 1000) throws(RedisError) -> ClusterTrim {
    let keys = ClusterKeys(room: room)
    let reply = try command("FCALL", ClusterFunctions.trim, 3, keys.log, keys.meta, keys.ids, keep, count)
    guard let parts = reply.elements, parts.count == 2, let removed = parts[0].integer, let last = parts[1].integer
    else { throw .unexpectedReply(command: "FCALL " + ClusterFunctions.trim, reply: reply.description) }
    return ClusterTrim(removed: Int(removed), trimmedSeq: UInt64(last))
  }

  /// The room's meta hash (epoch nil and zeros for a room that has none).
  public func meta(room: String) throws(RedisError) -> ClusterRoomMeta {
    let reply = try command("HMGET", ClusterKeys(room: room).meta, "epoch", "seq", "snapshot_seq", "trimmed_seq")
    guard let fields = reply.elements, fields.count == 4 else {
      throw .unexpectedReply(command: "HMGET", reply: reply.description)
    }
    func number(_ index: Int) -> UInt64 { fields[index].integer.map { UInt64(max(0, $0)) } ?? 0 }
    return ClusterRoomMeta(epoch: fields[0].text, seq: number(1), snapshotSeq: number(2), trimmedSeq: number(3))
  }

  /// Deletes every key of `room` (log, meta, ids, snapshot, lease, roster): the next op makes the
  /// room again with the epoch it brings. Whether anything was there.
  @discardableResult
  public func deleteRoom(_ room: String) throws(RedisError) -> Bool {
    let reply = try command(["DEL"] + ClusterKeys(room: room).all)
    return (reply.integer ?? 0) > 0
  }

  /// This connection's client id (`CLIENT ID`), for `unblock(client:)` from another connection.
  public func clientID() throws(RedisError) -> Int64 {
    let reply = try command("CLIENT", "ID")
    guard let id = reply.integer else { throw .unexpectedReply(command: "CLIENT ID", reply: reply.description) }
    return id
  }

  /// Ends the blocking read of another connection at once (`CLIENT UNBLOCK id`, which then
  /// returns as if its time had run out), e.g. when the rooms it should tail changed. Whether it
  /// was blocked.
  @discardableResult
  public func unblock(client: Int64) throws(RedisError) -> Bool {
    try command("CLIENT", "UNBLOCK", client).integer == 1
  }

  static func entries(_ reply: RedisReply, command: String) throws(RedisError) -> [ClusterLogEntry] {
    guard let items = reply.elements else { throw .unexpectedReply(command: command, reply: reply.description) }
    var entries: [ClusterLogEntry] = []
    entries.reserveCapacity(items.count)
    for item in items {
      guard let parts = item.elements, parts.count == 2, let id = parts[0].text, let fields = parts[1].elements,
        let seq = UInt64(id.prefix { $0 != "-" })
      else { throw .unexpectedReply(command: command, reply: item.description) }
      var entry = ClusterLogEntry(seq: seq, node: "", key: [], op: [])
      var index = 0
      while index + 1 < fields.count {
        let value = fields[index + 1].bytes ?? []
        switch fields[index].text {
        case "node": entry.node = String(decoding: value, as: UTF8.self)
        case "key": entry.key = value
        case "op": entry.op = value
        case "epoch": entry.epoch = String(decoding: value, as: UTF8.self)
        default: break
        }
        index += 2
      }
      entries.append(entry)
    }
    return entries
  }
}
