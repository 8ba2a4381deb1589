/// One presence message of another node: what it published on a room's channel.
public struct PresenceMessage: Sendable, Equatable {
  /// The room of the channel.
  public var room: String
  /// The node that published it.
  public var node: String
  /// The payload after the node id's line.
  public var payload: [UInt8]

  /// A message of `node` about `room`.
  public init(room: String, node: String, payload: [UInt8]) {
    self.room = room
    self.node = node
    self.payload = payload
  }
}

/// A sharded-subscribe connection (`SSUBSCRIBE`, Redis 7.0) for the presence channels of the rooms
/// this node follows, on a thread of its own; a node's own messages are dropped (`nodeID`). A
/// room's channel is a shard channel in the room's slot (`reorder:{room}:presence`), so in a Redis
/// Cluster its traffic stays on the shard that holds the room.
///
/// Subscribing writes the command and does not wait: Redis' confirmations come back through
/// `receive`, which is the only call that waits (at most its `waitSeconds`), so the thread can
/// change what it follows between two receives. After `RedisError.connectionLost`, make a new
/// subscriber and follow the rooms again.
public final class PresenceSubscriber: @unchecked Sendable {
  private let connection: RedisConnection
  /// This node's id: messages it published are not returned.
  public let nodeID: String
  /// The rooms followed, as last asked (Redis confirms them asynchronously).
  public private(set) var rooms: Set<String> = []

  /// Connects to `url` for node `nodeID`.
  public init(url: RedisURL, nodeID: String, timeouts: RedisTimeouts = RedisTimeouts(), metrics: RedisMetrics? = nil)
    throws(RedisError)
  {
    self.nodeID = nodeID
    connection = try RedisConnection(url: url, timeouts: timeouts, metrics: metrics)
  }

  /// Closes the connection.
  public func close() { connection.close() }

  /// Whether the connection failed or was closed.
  public var isBroken: Bool { connection.isBroken }

  /// Subscribes to the presence channels of `rooms` not followed yet.
  public func follow(_ rooms: [String]) throws(RedisError) {
    let new = rooms.filter { !self.rooms.contains($0) }
    guard !new.isEmpty else { return }
    // One command per channel: a cluster takes several shard channels in one SSUBSCRIBE only when
    // they share a slot.
    for room in new { try connection.send(["SSUBSCRIBE", ClusterKeys(room: room).presence]) }
    self.rooms.formUnion(new)
  }

  /// Unsubscribes from the presence channels of `rooms`.
  public func unfollow(_ rooms: [String]) throws(RedisError) {
    let old = rooms.filter { self.rooms.contains($0) }
    guard !old.isEmpty else { return }
    for room in old { try connection.send(["SUNSUBSCRIBE", ClusterKeys(room: room).presence]) }
    self.rooms.subtract(old)
  }

  /// Waits up to `waitSeconds` for messages, then returns the messages of other nodes already
  /// received, at most `limit` replies' worth (so that a flood cannot hold the caller; the rest
  /// wait for the next call), empty when none came in time. Confirmations and own messages are
  /// skipped.
  public func receive(waitSeconds: Double, limit: Int = 4096) throws(RedisError) -> [PresenceMessage] {
    var messages: [PresenceMessage] = []
    var wait = waitSeconds
    var replies = 0
    while replies < limit, let reply = try connection.receive(waitSeconds: wait) {
      wait = 0  // after the first reply, take only what is already there
      replies += 1
      if let message = message(reply) { messages.append(message) }
    }
    return messages
  }

  /// `["smessage", channel, "<node>\n<payload>"]` of another node, or nil.
  private func message(_ reply: RedisReply) -> PresenceMessage? {
    guard let parts = reply.elements, parts.count == 3, parts[0].text == "smessage",
      let channel = parts[1].text, let room = ClusterKeys.room(ofPresenceChannel: channel),
      let body = parts[2].bytes, let newline = body.firstIndex(of: 0x0A)
    else { return nil }
    let node = String(decoding: body[..<newline], as: UTF8.self)
    guard node != nodeID else { return nil }
    return PresenceMessage(room: room, node: node, payload: Array(body[(newline + 1)...]))
  }
}
