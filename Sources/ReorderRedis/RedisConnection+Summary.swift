/// The board list of cluster mode (docs/CLUSTER.md, "Board list and webhooks in cluster mode"):
/// a summary hash per room (`reorder:{R}:summary`) and one directory of every room with a
/// summary (`reorder:boards`, a sorted set scored 0, read in name order with `ZRANGEBYLEX`).
extension RedisCommands {
  /// Stores `summary` as the room's unless the room has no log meta any more (it was deleted), its
  /// meta names another epoch (it was replaced: these figures are of the old history), or a
  /// summary of the same epoch at this seq or later is stored; then, unless the room was deleted
  /// or replaced, lists it in the directory. Returns whether it stored, and the summary there
  /// before: its seq is what the lease holders have reported in `board.changed` so far.
  ///
  /// Two steps: a script on the room's keys (one slot), then the directory's `ZADD`, a command of
  /// its own, since the directory is in no room's slot (in a Redis Cluster it lives on one master
  /// of its own). The `ZADD` is idempotent; a board deleted between the two steps can leave its
  /// name in the directory without a summary, which the list leaves out.
  public func putSummary(room: String, _ summary: ClusterSummary) throws(RedisError) -> (
    stored: Bool, previous: ClusterSummary?
  ) {
    let keys = ClusterKeys(room: room)
    let reply = try command(
      key: keys.meta, "EVAL", ClusterScripts.putSummary, 2, keys.meta, keys.summary, summary.epoch, summary.seq,
      summary.lists,
      summary.items, summary.updatedMilliseconds)
    guard let parts = reply.elements, parts.count == 6, let stored = parts[0].integer else {
      throw .unexpectedReply(command: "EVAL putSummary", reply: reply.description)
    }
    if stored >= 0 { try command(key: ClusterKeys.directory, "ZADD", ClusterKeys.directory, 0, room) }
    return (stored == 1, ClusterReplies.summary(Array(parts.dropFirst())))
  }

  /// The room's summary, or nil when it has none.
  public func summary(room: String) throws(RedisError) -> ClusterSummary? {
    let reply = try command(
      key: ClusterKeys(room: room).summary, "HMGET", ClusterKeys(room: room).summary, "epoch", "seq", "lists", "items",
      "updated_at")
    guard let fields = reply.elements, fields.count == 5 else {
      throw .unexpectedReply(command: "HMGET", reply: reply.description)
    }
    return ClusterReplies.summary(fields)
  }

  /// Takes the room out of the board list: its directory entry and its summary. What deleting a
  /// board must call besides deleting the room's keys (`deleteRoom`, which removes the summary
  /// but not the directory entry, a key of no room). Whether it was listed.
  @discardableResult
  public func removeFromDirectory(room: String) throws(RedisError) -> Bool {
    let summary = ClusterKeys(room: room).summary
    let replies = try pipeline([
      RedisCommand(key: ClusterKeys.directory, ["ZREM", ClusterKeys.directory, room]),
      RedisCommand(key: summary, ["DEL", summary]),
    ])
    if case .error(let message) = replies[0] { throw .server(command: "ZREM", message: message) }
    return (replies[0].integer ?? 0) > 0
  }

  /// Up to `limit` rooms of the directory whose names sort after `after` (from the first without
  /// it), by name (bytewise), with their summaries and how many roster sessions of nodes alive at
  /// `now` (ms since the epoch) each lists. Two round trips (in a Redis Cluster, the second is one
  /// per master). A room whose master cannot be reached is listed `unreachable`, without figures;
  /// the directory's own master unreachable throws.
  public func listBoards(after: String?, limit: Int, now: Int64) throws(RedisError) -> [ClusterBoardListing] {
    let start = after.map { "(" + $0 } ?? "-"
    let names = try ClusterReplies.texts(
      try command(
        key: ClusterKeys.directory, "ZRANGEBYLEX", ClusterKeys.directory, start, "+", "LIMIT", 0, max(1, limit)),
      command: "ZRANGEBYLEX")
    guard !names.isEmpty else { return [] }
    var commands: [RedisCommand] = []
    for name in names {
      let keys = ClusterKeys(room: name)
      commands.append(
        RedisCommand(key: keys.summary, ["HMGET", keys.summary, "epoch", "seq", "lists", "items", "updated_at"]))
      commands.append(
        RedisCommand(key: keys.roster, ["FCALL", ClusterFunctions.onlineRoster, 2, keys.roster, keys.rosterNodes, now]))
    }
    let replies = try settledPipeline(commands)
    var listings: [ClusterBoardListing] = []
    for (index, name) in names.enumerated() {
      guard case .success(let fields) = replies[2 * index], case .success(let count) = replies[2 * index + 1],
        !fields.isErrorReply, !count.isErrorReply
      else {
        // Its master unreachable, or answering it cannot serve the slot now (`CLUSTERDOWN`,
        // `TRYAGAIN`, `LOADING`).
        listings.append(ClusterBoardListing(room: name, summary: nil, online: 0, unreachable: true))
        continue
      }
      guard let fields = fields.elements, fields.count == 5, let online = count.integer else {
        throw .unexpectedReply(
          command: "HMGET/FCALL " + ClusterFunctions.onlineRoster, reply: "\(fields.description), \(count.description)")
      }
      listings.append(ClusterBoardListing(room: name, summary: ClusterReplies.summary(fields), online: Int(online)))
    }
    // Nothing read after the directory was: the store is down as a whole (one Redis), not one master.
    if listings.allSatisfy(\.unreachable) {
      throw .unavailable(retryInSeconds: 0, lastError: "no summary of the listed boards could be read")
    }
    return listings
  }
}

/// A room's figures in the board list (`reorder:{R}:summary`).
public struct ClusterSummary: Sendable, Equatable {
  /// The history the figures are of.
  public var epoch: String
  /// The room's last seq they cover.
  public var seq: UInt64
  /// Lists on the board.
  public var lists: Int
  /// Items created on the board, deleted ones included.
  public var items: Int
  /// When the change they cover last happened (ms since the epoch).
  public var updatedMilliseconds: Int64

  /// A summary.
  public init(epoch: String, seq: UInt64, lists: Int, items: Int, updatedMilliseconds: Int64) {
    self.epoch = epoch
    self.seq = seq
    self.lists = lists
    self.items = items
    self.updatedMilliseconds = updatedMilliseconds
  }
}

/// One room of the board list as Redis has it.
public struct ClusterBoardListing: Sendable, Equatable {
  /// The room.
  public var room: String
  /// Its summary; nil when the directory lists a room whose summary is gone (deleted meanwhile).
  public var summary: ClusterSummary?
  /// Roster sessions of every node not expired: the room's visible members across the cluster.
  public var online: Int
  /// The Redis node holding the room could not be reached: no figures were read.
  public var unreachable: Bool

  /// A listing.
  public init(room: String, summary: ClusterSummary?, online: Int, unreachable: Bool = false) {
    self.room = room
    self.summary = summary
    self.online = online
    self.unreachable = unreachable
  }
}
