/// A room's roster and presence channel (docs/CLUSTER.md, "Rosters"). Each call has a batch
/// form, one pipeline for many rooms (in a Redis Cluster, one per master), whose results are
/// settled: a master that cannot be reached fails only its rooms.
extension RedisCommands {
  /// Adds or replaces `node`'s sessions in the room's roster and beats the node's heartbeat,
  /// alive until `expiresAt` (ms since the epoch).
  public func putRoster(room: String, node: String, _ entries: [ClusterRosterEntry], expiresAt: Int64)
    throws(RedisError)
  {
    guard !entries.isEmpty else { return }
    _ = try putRosters([(room, entries)], node: node, expiresAt: expiresAt)[0].get()
  }

  /// `putRoster` for several rooms in one pipeline; a result per element of `rooms`, in order.
  public func putRosters(_ rooms: [(room: String, entries: [ClusterRosterEntry])], node: String, expiresAt: Int64)
    throws(RedisError) -> [Result<Void, RedisError>]
  {
    precondition(!node.contains("\n"), "a node id holds no line break: it ends the node's part of a roster value")
    let commands = rooms.map { room, entries in
      let keys = ClusterKeys(room: room)
      var arguments: [any RedisArgument] = [
        "FCALL", ClusterFunctions.putRoster, 3, keys.roster, keys.rosterNodes, keys.rosterVersion, node, expiresAt,
      ]
      for entry in entries { arguments += [entry.session, entry.peer] }
      return RedisCommand(key: keys.meta, arguments)
    }
    return try settled(commands, name: "FCALL " + ClusterFunctions.putRoster) { _ in () }
  }

  /// `node`'s heartbeat in the room: alive until `expiresAt`. True when the node was not listed
  /// (it was expired, and its sessions with it): the caller puts its sessions again.
  public func beatRoster(room: String, node: String, expiresAt: Int64) throws(RedisError) -> Bool {
    try beatRosters(rooms: [room], node: node, expiresAt: expiresAt)[0].get()
  }

  /// `beatRoster` for several rooms in one pipeline; a result per room, in order.
  public func beatRosters(rooms: [String], node: String, expiresAt: Int64) throws(RedisError)
    -> [Result<Bool, RedisError>]
  {
    let commands = rooms.map { room in
      let keys = ClusterKeys(room: room)
      return RedisCommand(
        key: keys.meta,
        ["FCALL", ClusterFunctions.beatRoster, 3, keys.roster, keys.rosterNodes, keys.rosterVersion, node, expiresAt])
    }
    return try settled(commands, name: "FCALL " + ClusterFunctions.beatRoster) { $0.integer == 1 }
  }

  /// Removes `sessions` from the roster; how many were there.
  @discardableResult
  public func removeRoster(room: String, sessions: [String]) throws(RedisError) -> Int {
    guard !sessions.isEmpty else { return 0 }
    return try removeRosters([(room, sessions)])[0].get()
  }

  /// `removeRoster` for several rooms in one pipeline; a result per element, in order.
  public func removeRosters(_ rooms: [(room: String, sessions: [String])]) throws(RedisError)
    -> [Result<Int, RedisError>]
  {
    let commands = rooms.map { room, sessions in
      let keys = ClusterKeys(room: room)
      return RedisCommand(
        key: keys.meta,
        ["FCALL", ClusterFunctions.removeRoster, 3, keys.roster, keys.rosterNodes, keys.rosterVersion] + sessions)
    }
    return try settled(commands, name: "FCALL " + ClusterFunctions.removeRoster) { Int($0.integer ?? 0) }
  }

  /// Expires the nodes whose heartbeat is at or before `now` (ms since the epoch), with their
  /// sessions (a node that crashed: their drags end), then reads the roster: its version, and its
  /// sessions with their peers unless the version is `known` (then nil: nothing changed).
  public func readRoster(room: String, now: Int64, known: String?) throws(RedisError) -> ClusterRoster {
    try readRosters([(room, known)], now: now)[0].get()
  }

  /// `readRoster` for several rooms in one pipeline; a result per element, in order.
  public func readRosters(_ rooms: [(room: String, known: String?)], now: Int64) throws(RedisError)
    -> [Result<ClusterRoster, RedisError>]
  {
    let command = "FCALL " + ClusterFunctions.readRoster
    let commands = rooms.map { room, known in
      let keys = ClusterKeys(room: room)
      return RedisCommand(
        key: keys.meta,
        ["FCALL", ClusterFunctions.readRoster, 3, keys.roster, keys.rosterNodes, keys.rosterVersion, now, known ?? ""])
    }
    let replies = try settled(commands, name: "FCALL " + ClusterFunctions.readRoster) { $0 }
    return zip(rooms, replies).map { room, result in
      result.flatMap { reply in
        Result { () throws(RedisError) in
          let flat = try ClusterReplies.texts(reply, command: command)
          guard let version = flat.first else { throw .unexpectedReply(command: command, reply: reply.description) }
          guard version != room.known else { return ClusterRoster(version: version, entries: nil) }
          let entries = stride(from: 1, to: flat.count - 1, by: 2).map {
            ClusterRosterEntry(session: flat[$0], peer: flat[$0 + 1])
          }
          return ClusterRoster(version: version, entries: entries)
        }
      }
    }
  }

  /// Publishes `payload` on the room's presence shard channel (`SPUBLISH`) as `<node>\n<payload>`; how many
  /// subscribers (of all nodes, this one's included) got it. A node id holds no line break.
  @discardableResult
  public func publishPresence(room: String, node: String, payload: [UInt8]) throws(RedisError) -> Int {
    try publishPresence([(room, payload)], node: node)[0].get()
  }

  /// `publishPresence` for several messages in one pipeline (a room's messages keep their order);
  /// a result per message, in order.
  @discardableResult
  public func publishPresence(_ messages: [(room: String, payload: [UInt8])], node: String) throws(RedisError)
    -> [Result<Int, RedisError>]
  {
    precondition(!node.contains("\n"), "a node id holds no line break: it ends the node's part of a message")
    let commands = messages.map { room, payload in
      let keys = ClusterKeys(room: room)
      return RedisCommand(key: keys.meta, ["SPUBLISH", keys.presence, Array(node.utf8) + [0x0A] + payload])
    }
    return try settled(commands, name: "SPUBLISH") { Int($0.integer ?? 0) }
  }
}
