/// The log of a room: the library, appends, ranges and trims (docs/CLUSTER.md).
extension RedisCommands {
  /// Loads (or replaces) the function library `reorder` on every node; its name as Redis reports it.
  @discardableResult
  public func loadFunctions() throws(RedisError) -> String {
    var name = ""
    try forEachNode { (node) throws(RedisError) in name = try node.loadLibrary() }
    return name
  }

  /// Appends one op (any seq: no `until`): its seq, the seq it already had,
  /// or the room's epoch when it differs from `epoch`.
  public func append(room: String, epoch: String, key: [UInt8], node: String, payload: [UInt8])
    throws(RedisError) -> AppendOutcome
  {
    try append([ClusterAppend(room: room, epoch: epoch, key: key, node: node, payload: payload)])[0]
  }

  /// Appends several ops in one round trip (one `reorder_append_ops` call per room, pipelined), in
  /// order. When it throws, some of them may be in the log: appending them again is safe (same
  /// keys, same seqs).
  /// An epoch is printable text (it comes back in an error reply, which holds no control bytes).
  public func append(_ ops: [ClusterAppend]) throws(RedisError) -> [AppendOutcome] {
    try settledAppend(ops).values()
  }

  /// `append`, where a Redis node that cannot be reached fails only the ops of its rooms (a Redis
  /// Cluster's other masters answer theirs): each op's outcome, or the failure of its node (the op
  /// may or may not be in the log: appending it again is safe).
  ///
  /// The ops of each room go out as one `reorder_append_ops` call, in their order (rooms' logs are
  /// independent, so only each room's order matters): Redis runs one function call per room of
  /// the batch, not one per op.
  public func settledAppend(_ ops: [ClusterAppend]) throws(RedisError) -> [Result<AppendOutcome, RedisError>] {
    precondition(
      ops.allSatisfy { $0.epoch.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F } },
      "an epoch is printable text")
    var rooms: [String: Int] = [:]
    var groups: [(room: String, indices: [Int])] = []
    for (index, op) in ops.enumerated() {
      if let group = rooms[op.room] {
        groups[group].indices.append(index)
      } else {
        rooms[op.room] = groups.count
        groups.append((op.room, [index]))
      }
    }
    let calls = groups.map { group in
      let keys = ClusterKeys(room: group.room)
      var command: [any RedisArgument] = ["FCALL", ClusterFunctions.appendOps, 3, keys.log, keys.meta, keys.ids]
      command.append(keys.appends)
      for index in group.indices {
        let op = ops[index]
        command += [op.epoch, op.key, op.node, op.payload, op.creates ? "1" : "0", op.until] as [any RedisArgument]
      }
      return RedisCommand(key: keys.meta, command)
    }
    var replies = try settledPipeline(calls)
    // A node of the previous release loads its library (without `reorder_append_ops`) when it
    // connects: load this one again and send the calls it refused once more (nothing was appended).
    let missing = replies.indices.filter { Self.isMissingFunction(replies[$0]) }
    if !missing.isEmpty, (try? loadFunctions()) != nil {
      let again = try settledPipeline(missing.map { calls[$0] })
      for (index, reply) in zip(missing, again) { replies[index] = reply }
    }
    var outcomes = [Result<AppendOutcome, RedisError>](
      repeating: .failure(.unexpectedReply(command: "FCALL " + ClusterFunctions.appendOps, reply: "")),
      count: ops.count)
    for (group, reply) in zip(groups, replies) {
      for (position, index) in group.indices.enumerated() {
        outcomes[index] = reply.flatMap { Self.appendOutcome(ofCall: $0, op: position, of: group.indices.count) }
      }
    }
    return outcomes
  }

  /// Whether a reply says the function called is not loaded on that node.
  private static func isMissingFunction(_ reply: Result<RedisReply, RedisError>) -> Bool {
    guard case .success(.error(let message)) = reply else { return false }
    return message.hasPrefix("ERR Function not found")
  }

  /// The reply to op `position` of a `reorder_append_ops` call of `count` ops.
  private static func appendOutcome(ofCall reply: RedisReply, op position: Int, of count: Int)
    -> Result<AppendOutcome, RedisError>
  {
    let command = "FCALL " + ClusterFunctions.appendOps
    switch reply {
    case .array(let parts) where parts.count == count: return appendOutcome(parts[position])
    case .error(let message): return .failure(.server(command: command, message: message))
    default: return .failure(.unexpectedReply(command: command, reply: reply.description))
    }
  }

  /// What one op's reply in a `reorder_append_ops` answer says.
  private static func appendOutcome(_ reply: RedisReply) -> Result<AppendOutcome, RedisError> {
    let command = "FCALL " + ClusterFunctions.appendOps
    switch reply {
    case .error(let message) where message.hasPrefix("EPOCH "):
      return .success(.epochMismatch(current: String(message.dropFirst("EPOCH ".count))))
    case .error(let message) where message.hasPrefix("STALE "):
      guard let until = UInt64(message.dropFirst("STALE ".count)) else {
        return .failure(.unexpectedReply(command: command, reply: reply.description))
      }
      return .success(.stale(until: until))
    case .error(let message):
      return .failure(.server(command: command, message: message))
    case .array(let parts) where parts.count == 2:
      guard let seq = parts[0].integer, seq > 0 else {
        return .failure(.unexpectedReply(command: command, reply: reply.description))
      }
      switch parts[1].text {
      case "applied": return .success(.applied(seq: UInt64(seq)))
      case "known": return .success(.known(seq: UInt64(seq)))
      default: return .failure(.unexpectedReply(command: command, reply: reply.description))
      }
    default:
      return .failure(.unexpectedReply(command: command, reply: reply.description))
    }
  }

  /// Raises each room's replicated watermark to its seq (`reorder_replicated`, which publishes it
  /// on the room's appends channel), one pipeline; the rooms whose watermark could not be written.
  public func markReplicated(_ seqs: [String: UInt64]) throws(RedisError) -> [String] {
    let rooms = Array(seqs.keys)
    let results = try settledPipeline(
      rooms.map { room in
        let keys = ClusterKeys(room: room)
        return RedisCommand(
          key: keys.meta, ["FCALL", ClusterFunctions.markReplicated, 1, keys.meta, seqs[room]!, keys.appends])
      })
    return zip(rooms, results).compactMap { room, result in
      if case .success(let reply) = result, reply.integer != nil { return nil }
      return room
    }
  }

  /// The entries of `room` after `seq`, in seq order, at most `limit` (XRANGE): how a node fills
  /// a gap. Entries at or below the room's `trimmedSeq` are gone; read the snapshot instead.
  public func entries(room: String, after seq: UInt64, limit: Int = 1000) throws(RedisError) -> [ClusterLogEntry] {
    precondition(limit > 0, "a range needs a positive limit")
    let reply = try command(
      key: ClusterKeys(room: room).meta, "XRANGE", ClusterKeys(room: room).log, "\(seq + 1)-0", "+", "COUNT", limit)
    return try ClusterReplies.entries(reply, command: "XRANGE")
  }

  /// The newest entries of `room` below `seq`, at most `limit`, in seq order (XREVRANGE).
  public func latestEntries(room: String, before seq: UInt64, limit: Int) throws(RedisError) -> [ClusterLogEntry] {
    precondition(limit > 0, "a range needs a positive limit")
    guard seq > 1 else { return [] }
    let reply = try command(
      key: ClusterKeys(room: room).meta, "XREVRANGE", ClusterKeys(room: room).log, "(\(seq)-0", "-", "COUNT", limit)
    return try ClusterReplies.entries(reply, command: "XREVRANGE").reversed()
  }

  /// Removes the entries of `room` below `keep` and their op ids, at most `count` per call
  /// (`reorder_trim`, then `XTRIM MINID`); repeat while `removed == count`.
  public func trim(room: String, keepFrom keep: UInt64, count: Int = 1000) throws(RedisError) -> ClusterTrim {
    let keys = ClusterKeys(room: room)
    let reply = try command(
      key: ClusterKeys(room: room).meta, "FCALL", ClusterFunctions.trim, 3, keys.log, keys.meta, keys.ids, keep, count)
    guard let parts = reply.elements, parts.count == 2, let removed = parts[0].integer, let last = parts[1].integer
    else { throw .unexpectedReply(command: "FCALL " + ClusterFunctions.trim, reply: reply.description) }
    return ClusterTrim(removed: Int(removed), trimmedSeq: UInt64(last))
  }

  /// The room's meta hash (epoch nil and zeros for a room that has none).
  public func meta(room: String) throws(RedisError) -> ClusterRoomMeta {
    try metas(rooms: [room])[room]!
  }

  /// Each room's meta hash (`HMGET`, one pipeline: in a Redis Cluster, one per master).
  public func metas(rooms: [String]) throws(RedisError) -> [String: ClusterRoomMeta] {
    try Self.unsettled(settledMetas(rooms: rooms))
  }

  /// `metas`, where a Redis node that cannot be reached (or a reply that cannot be read) fails
  /// only its rooms.
  public func settledMetas(rooms: [String]) throws(RedisError) -> [String: Result<ClusterRoomMeta, RedisError>] {
    let replies = try settled(
      rooms.map {
        let meta = ClusterKeys(room: $0).meta
        return RedisCommand(key: meta, ["HMGET", meta, "epoch", "seq", "snapshot_seq", "trimmed_seq", "replicated"])
      }, name: "HMGET"
    ) { $0 }
    var metas: [String: Result<ClusterRoomMeta, RedisError>] = [:]
    for (room, result) in zip(rooms, replies) {
      metas[room] = result.flatMap { reply in
        guard let fields = reply.elements, fields.count == 5 else {
          return .failure(.unexpectedReply(command: "HMGET", reply: reply.description))
        }
        func number(_ index: Int) -> UInt64 { fields[index].integer.map { UInt64(max(0, $0)) } ?? 0 }
        return .success(
          ClusterRoomMeta(
            epoch: fields[0].text, seq: number(1), snapshotSeq: number(2), trimmedSeq: number(3),
            replicated: fields[4].integer.map { UInt64(max(0, $0)) }))
      }
    }
    return metas
  }

  /// The entries after each room's seq, at most `limit` per room, in seq order (`XRANGE`, one
  /// pipeline: in a Redis Cluster, one per master).
  public func entries(after positions: [String: UInt64], limit: Int = 1000) throws(RedisError) -> [String:
    [ClusterLogEntry]]
  {
    try Self.unsettled(settledEntries(after: positions, limit: limit))
  }

  /// `entries(after:limit:)`, where a Redis node that cannot be reached (or a reply that cannot be
  /// read) fails only its rooms.
  public func settledEntries(after positions: [String: UInt64], limit: Int = 1000) throws(RedisError) -> [String:
    Result<[ClusterLogEntry], RedisError>]
  {
    precondition(limit > 0, "a range needs a positive limit")
    let rooms = Array(positions.keys)
    let replies = try settledPipeline(
      rooms.map {
        let log = ClusterKeys(room: $0).log
        return RedisCommand(key: log, ["XRANGE", log, "\(positions[$0]! + 1)-0", "+", "COUNT", limit])
      })
    var result: [String: Result<[ClusterLogEntry], RedisError>] = [:]
    for (room, reply) in zip(rooms, replies) {
      result[room] = reply.flatMap { reply in
        if case .error(let message) = reply { return .failure(.server(command: "XRANGE", message: message)) }
        return Result { () throws(RedisError) in try ClusterReplies.entries(reply, command: "XRANGE") }
      }
    }
    return result
  }

  /// Every value of `results`, or the first failure.
  private static func unsettled<T>(_ results: [String: Result<T, RedisError>]) throws(RedisError) -> [String: T] {
    var values: [String: T] = [:]
    for (key, result) in results {
      switch result {
      case .success(let value): values[key] = value
      case .failure(let error): throw error
      }
    }
    return values
  }

  /// Deletes every key of `room` (log, meta, ids, snapshot, lease, roster): the next op makes the
  /// room again with the epoch it brings. Whether anything was there.
  @discardableResult
  public func deleteRoom(_ room: String) throws(RedisError) -> Bool {
    let reply = try command(key: ClusterKeys(room: room).meta, ["DEL"] + ClusterKeys(room: room).all)
    return (reply.integer ?? 0) > 0
  }
}

extension RedisConnection {
  /// Loads (or replaces) the function library `reorder` on this connection's Redis; its name as
  /// Redis reports it.
  @discardableResult
  func loadLibrary() throws(RedisError) -> String {
    let reply = try command("FUNCTION", "LOAD", "REPLACE", ClusterFunctions.source)
    guard let name = reply.text else { throw .unexpectedReply(command: "FUNCTION LOAD", reply: reply.description) }
    return name
  }
}
