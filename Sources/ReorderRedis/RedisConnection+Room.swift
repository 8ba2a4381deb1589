/// A room's snapshot, lease and roster (docs/CLUSTER.md).
extension RedisCommands {
  /// Stores `bytes` as the room's snapshot at `seq` unless one at `seq` or later is stored
  /// (`reorder_snapshot`, which also sets meta `snapshot_seq`). Whether it was stored.
  @discardableResult
  public func putSnapshot(room: String, seq: UInt64, bytes: [UInt8]) throws(RedisError) -> Bool {
    let keys = ClusterKeys(room: room)
    return try command(
      key: ClusterKeys(room: room).meta, "FCALL", ClusterFunctions.putSnapshot, 3, keys.snapshot, keys.meta, keys.bases,
      seq, bytes
    )
    .integer == 1
  }

  /// The seqs of the room's kept snapshots (`bases`), in order.
  public func baseSeqs(room: String) throws(RedisError) -> [UInt64] {
    let reply = try command(key: ClusterKeys(room: room).meta, "HKEYS", ClusterKeys(room: room).bases)
    guard let fields = reply.elements else { throw .unexpectedReply(command: "HKEYS", reply: reply.description) }
    return fields.compactMap { $0.text.flatMap { UInt64($0) } }.sorted()
  }

  /// The kept snapshot at `seq` (`bases`), nil when there is none.
  public func base(room: String, seq: UInt64) throws(RedisError) -> [UInt8]? {
    try command(key: ClusterKeys(room: room).meta, "HGET", ClusterKeys(room: room).bases, seq).bytes
  }

  /// Deletes the kept snapshots at these seqs (`HDEL`).
  public func dropBases(room: String, seqs: [UInt64]) throws(RedisError) {
    guard !seqs.isEmpty else { return }
    _ = try command(
      key: ClusterKeys(room: room).meta, ["HDEL", ClusterKeys(room: room).bases] + seqs.map { $0 as any RedisArgument })
  }

  /// The room's latest snapshot, or nil when it has none.
  public func snapshot(room: String) throws(RedisError) -> ClusterSnapshot? {
    let reply = try command(
      key: ClusterKeys(room: room).meta, "HMGET", ClusterKeys(room: room).snapshot, "seq", "bytes")
    guard let fields = reply.elements, fields.count == 2 else {
      throw .unexpectedReply(command: "HMGET", reply: reply.description)
    }
    guard let seq = fields[0].integer, let bytes = fields[1].bytes else { return nil }
    return ClusterSnapshot(seq: UInt64(seq), bytes: bytes)
  }

  /// Takes the room's snapshot/trim lease for `milliseconds` (`SET NX PX`), or renews it when
  /// `node` already holds it. Whether `node` holds it now.
  public func acquireLease(room: String, node: String, milliseconds: Int) throws(RedisError) -> Bool {
    let reply = try command(
      key: ClusterKeys(room: room).meta,
      "FCALL", ClusterFunctions.acquireLease, 1, ClusterKeys(room: room).lease, node, milliseconds)
    return reply.text == node
  }

  /// Renews the lease for `milliseconds` if `node` holds it. Whether it did.
  public func renewLease(room: String, node: String, milliseconds: Int) throws(RedisError) -> Bool {
    try command(
      key: ClusterKeys(room: room).meta, "FCALL", ClusterFunctions.renewLease, 1, ClusterKeys(room: room).lease, node,
      milliseconds
    ).integer == 1
  }

  /// Releases the lease if `node` holds it. Whether it did.
  @discardableResult
  public func releaseLease(room: String, node: String) throws(RedisError) -> Bool {
    try command(
      key: ClusterKeys(room: room).meta, "FCALL", ClusterFunctions.releaseLease, 1, ClusterKeys(room: room).lease, node
    ).integer == 1
  }

  /// The node holding the room's lease, or nil.
  public func leaseHolder(room: String) throws(RedisError) -> String? {
    try command(key: ClusterKeys(room: room).meta, "GET", ClusterKeys(room: room).lease).text
  }

  /// Adds or replaces `node`'s sessions in the room's roster and beats the node's heartbeat,
  /// alive until `expiresAt` (ms since the epoch).
  public func putRoster(room: String, node: String, _ entries: [ClusterRosterEntry], expiresAt: Int64)
    throws(RedisError)
  {
    guard !entries.isEmpty else { return }
    precondition(!node.contains("\n"), "a node id holds no line break: it ends the node's part of a roster value")
    let keys = ClusterKeys(room: room)
    var arguments: [any RedisArgument] = [
      "FCALL", ClusterFunctions.putRoster, 3, keys.roster, keys.rosterNodes, keys.rosterVersion, node, expiresAt,
    ]
    for entry in entries { arguments += [entry.session, entry.peer] }
    try command(key: ClusterKeys(room: room).meta, arguments)
  }

  /// `node`'s heartbeat in the room: alive until `expiresAt`. True when the node was not listed
  /// (it was expired, and its sessions with it): the caller puts its sessions again.
  public func beatRoster(room: String, node: String, expiresAt: Int64) throws(RedisError) -> Bool {
    let keys = ClusterKeys(room: room)
    let reply = try command(
      key: ClusterKeys(room: room).meta,
      "FCALL", ClusterFunctions.beatRoster, 3, keys.roster, keys.rosterNodes, keys.rosterVersion, node, expiresAt)
    return reply.integer == 1
  }

  /// Removes `sessions` from the roster; how many were there.
  @discardableResult
  public func removeRoster(room: String, sessions: [String]) throws(RedisError) -> Int {
    guard !sessions.isEmpty else { return 0 }
    let keys = ClusterKeys(room: room)
    let reply = try command(
      key: ClusterKeys(room: room).meta,
      ["FCALL", ClusterFunctions.removeRoster, 3, keys.roster, keys.rosterNodes, keys.rosterVersion] + sessions)
    return Int(reply.integer ?? 0)
  }

  /// Expires the nodes whose heartbeat is at or before `now` (ms since the epoch), with their
  /// sessions (a node that crashed: their drags end), then reads the roster: its version, and its
  /// sessions with their peers unless the version is `known` (then nil: nothing changed).
  public func readRoster(room: String, now: Int64, known: String?) throws(RedisError) -> ClusterRoster {
    let keys = ClusterKeys(room: room)
    let reply = try command(
      key: ClusterKeys(room: room).meta,
      "FCALL", ClusterFunctions.readRoster, 3, keys.roster, keys.rosterNodes, keys.rosterVersion, now, known ?? "")
    let flat = try ClusterReplies.texts(reply, command: "FCALL " + ClusterFunctions.readRoster)
    guard let version = flat.first else {
      throw .unexpectedReply(command: "FCALL " + ClusterFunctions.readRoster, reply: reply.description)
    }
    guard version != known else { return ClusterRoster(version: version, entries: nil) }
    let entries = stride(from: 1, to: flat.count - 1, by: 2).map {
      ClusterRosterEntry(session: flat[$0], peer: flat[$0 + 1])
    }
    return ClusterRoster(version: version, entries: entries)
  }

  /// Publishes `payload` on the room's presence shard channel (`SPUBLISH`) as `<node>\n<payload>`; how many
  /// subscribers (of all nodes, this one's included) got it. A node id holds no line break.
  @discardableResult
  public func publishPresence(room: String, node: String, payload: [UInt8]) throws(RedisError) -> Int {
    precondition(!node.contains("\n"), "a node id holds no line break: it ends the node's part of a message")
    return Int(
      try command(
        key: ClusterKeys(room: room).meta, "SPUBLISH", ClusterKeys(room: room).presence,
        Array(node.utf8) + [0x0A] + payload
      ).integer ?? 0)
  }
}
