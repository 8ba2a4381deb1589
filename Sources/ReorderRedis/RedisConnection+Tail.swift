/// Reads of one connection of one Redis: the multi-room tail (`XREAD BLOCK`) and the client id
/// that ends a blocked read.
extension RedisConnection {
  /// Loads (or replaces) the function library `reorder` on this connection's Redis; its name as
  /// Redis reports it.
  @discardableResult
  func loadLibrary() throws(RedisError) -> String {
    let reply = try command("FUNCTION", "LOAD", "REPLACE", ClusterFunctions.source)
    guard let name = reply.text else { throw .unexpectedReply(command: "FUNCTION LOAD", reply: reply.description) }
    return name
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
      result[room] = try ClusterReplies.entries(parts[1], command: "XREAD")
    }
    return result
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
}
