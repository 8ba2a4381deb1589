/// Whole boards (the HTTP API's `PUT` and `DELETE` in cluster mode) and the rooms' epochs, as a
/// node's tail checks them (docs/CLUSTER.md, "The API in cluster mode").
extension RedisCommands {
  /// Writes a board as `room`'s new history in one step (`reorder_board_put`): ops 1…n with their
  /// keys and payloads, `epoch`, and the snapshot at n. A room that has ops keeps them unless
  /// `replace`; otherwise its log, op ids, meta and snapshot are the board's afterwards.
  public func putBoard(
    room: String, epoch: String, replace: Bool, node: String, ops: [(key: [UInt8], payload: [UInt8])],
    snapshot: [UInt8]
  ) throws(RedisError) -> BoardPutOutcome {
    let keys = ClusterKeys(room: room)
    var arguments: [any RedisArgument] = [
      "FCALL", ClusterFunctions.putBoard, 5, keys.log, keys.meta, keys.ids, keys.snapshot, keys.bases, epoch,
      replace ? "1" : "0", node, snapshot,
    ]
    arguments.reserveCapacity(arguments.count + 2 * ops.count)
    for op in ops { arguments += [op.key, op.payload] }
    let reply = try command(key: ClusterKeys(room: room).meta, arguments)
    switch reply.text {
    case "created": return .created
    case "replaced": return .replaced
    case "exists": return .exists
    default: throw .unexpectedReply(command: "FCALL " + ClusterFunctions.putBoard, reply: reply.description)
    }
  }

  /// Deletes every key of `room` if it has ops (`reorder_board_delete`): whether it had.
  public func deleteBoard(room: String) throws(RedisError) -> Bool {
    let keys = ClusterKeys(room: room)
    let rest = keys.all.filter { $0 != keys.meta }
    let reply = try command(
      key: ClusterKeys(room: room).meta, ["FCALL", ClusterFunctions.deleteBoard, 1 + rest.count, keys.meta] + rest)
    return reply.integer == 1
  }

  /// The epoch of each room (`HGET meta epoch`, one pipeline): nil for a room with no history.
  public func epochs(rooms: [String]) throws(RedisError) -> [String: String?] {
    guard !rooms.isEmpty else { return [:] }
    let replies = try pipeline(
      rooms.map { RedisCommand(key: ClusterKeys(room: $0).meta, ["HGET", ClusterKeys(room: $0).meta, "epoch"]) })
    var result: [String: String?] = [:]
    for (room, reply) in zip(rooms, replies) {
      if case .error(let message) = reply { throw .server(command: "HGET", message: message) }
      result[room] = .some(reply.text)
    }
    return result
  }
}
