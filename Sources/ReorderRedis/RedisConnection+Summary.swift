/// The board list of cluster mode (docs/CLUSTER.md, "Board list and webhooks in cluster mode"):
/// a summary hash per room (`reorder:{R}:summary`) and one directory of every room with a
/// summary (`reorder:boards`, a sorted set scored 0, read in name order with `ZRANGEBYLEX`).
extension RedisConnection {
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
      "EVAL", Self.putSummaryScript, 2, keys.meta, keys.summary, summary.epoch, summary.seq, summary.lists,
      summary.items, summary.updatedMilliseconds)
    guard let parts = reply.elements, parts.count == 6, let stored = parts[0].integer else {
      throw .unexpectedReply(command: "EVAL putSummary", reply: reply.description)
    }
    if stored >= 0 { try command("ZADD", ClusterKeys.directory, 0, room) }
    return (stored == 1, Self.summary(Array(parts.dropFirst())))
  }

  /// The room's summary, or nil when it has none.
  public func summary(room: String) throws(RedisError) -> ClusterSummary? {
    let reply = try command(
      "HMGET", ClusterKeys(room: room).summary, "epoch", "seq", "lists", "items", "updated_at")
    guard let fields = reply.elements, fields.count == 5 else {
      throw .unexpectedReply(command: "HMGET", reply: reply.description)
    }
    return Self.summary(fields)
  }

  /// Takes the room out of the board list: its directory entry and its summary. What deleting a
  /// board must call besides deleting the room's keys (`deleteRoom`, which removes the summary
  /// but not the directory entry, a key of no room). Whether it was listed.
  @discardableResult
  public func removeFromDirectory(room: String) throws(RedisError) -> Bool {
    let replies = try pipeline([
      ["ZREM", ClusterKeys.directory, room], ["DEL", ClusterKeys(room: room).summary],
    ])
    if case .error(let message) = replies[0] { throw .server(command: "ZREM", message: message) }
    return (replies[0].integer ?? 0) > 0
  }

  /// Up to `limit` rooms of the directory whose names sort after `after` (from the first without
  /// it), by name (bytewise), with their summaries and how many roster sessions of nodes alive at
  /// `now` (ms since the epoch) each lists. Two round trips.
  public func listBoards(after: String?, limit: Int, now: Int64) throws(RedisError) -> [ClusterBoardListing] {
    let start = after.map { "(" + $0 } ?? "-"
    let names = try Self.texts(
      try command("ZRANGEBYLEX", ClusterKeys.directory, start, "+", "LIMIT", 0, max(1, limit)), command: "ZRANGEBYLEX")
    guard !names.isEmpty else { return [] }
    var commands: [[any RedisArgument]] = []
    for name in names {
      let keys = ClusterKeys(room: name)
      commands.append(["HMGET", keys.summary, "epoch", "seq", "lists", "items", "updated_at"])
      commands.append(["FCALL", ClusterFunctions.onlineRoster, 2, keys.roster, keys.rosterNodes, now])
    }
    let replies = try pipeline(commands)
    var listings: [ClusterBoardListing] = []
    for (index, name) in names.enumerated() {
      let fields = replies[2 * index]
      let count = replies[2 * index + 1]
      guard let fields = fields.elements, fields.count == 5, let online = count.integer else {
        throw .unexpectedReply(
          command: "HMGET/FCALL " + ClusterFunctions.onlineRoster, reply: "\(fields.description), \(count.description)")
      }
      listings.append(ClusterBoardListing(room: name, summary: Self.summary(fields), online: Int(online)))
    }
    return listings
  }

  static func summary(_ fields: [RedisReply]) -> ClusterSummary? {
    guard fields.count == 5, let epoch = fields[0].text, let seq = fields[1].integer else { return nil }
    return ClusterSummary(
      epoch: epoch, seq: UInt64(max(0, seq)), lists: Int(fields[2].integer ?? 0), items: Int(fields[3].integer ?? 0),
      updatedMilliseconds: fields[4].integer ?? 0)
  }

  /// KEYS meta, summary; ARGV epoch, seq, lists, items, updated_at. Replies
  /// `{stored, epoch, seq, lists, items, updated_at}` with the fields stored before (nil when
  /// none); `stored` is 1 when stored, 0 when a summary as recent is there, -1 when the room was
  /// deleted or replaced.
  static let putSummaryScript = """
    local before = redis.call('HMGET', KEYS[2], 'epoch', 'seq', 'lists', 'items', 'updated_at')
    local function reply(stored) return {stored, before[1], before[2], before[3], before[4], before[5]} end
    local epoch = redis.call('HGET', KEYS[1], 'epoch')
    if not epoch or epoch ~= ARGV[1] then return reply(-1) end
    if before[1] == ARGV[1] and tonumber(before[2]) >= tonumber(ARGV[2]) then return reply(0) end
    redis.call('HSET', KEYS[2], 'epoch', ARGV[1], 'seq', ARGV[2], 'lists', ARGV[3], 'items', ARGV[4],
      'updated_at', ARGV[5])
    return reply(1)
    """
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

  /// A listing.
  public init(room: String, summary: ClusterSummary?, online: Int) {
    self.room = room
    self.summary = summary
    self.online = online
  }
}
