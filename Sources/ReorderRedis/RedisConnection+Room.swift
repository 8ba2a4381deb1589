/// A room's snapshot and lease (docs/CLUSTER.md).
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
}
