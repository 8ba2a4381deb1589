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

/// The presence channels of the rooms this node follows (`SSUBSCRIBE`, Redis 7.0), on a thread
/// of its own; a node's own messages are dropped (`nodeID`). A room's channel is a shard channel
/// in the room's slot (`reorder:{room}:presence`), so in a Redis Cluster its traffic stays on the
/// shard that holds the room (`ShardedSubscriber`, which also follows slot moves and lost
/// connections).
public final class PresenceSubscriber: @unchecked Sendable {
  private let channels: ShardedSubscriber
  /// This node's id: messages it published are not returned.
  public let nodeID: String
  /// The rooms followed, as last asked (Redis confirms them asynchronously).
  public private(set) var rooms: Set<String> = []

  /// A subscriber to `target` for node `nodeID`; it connects at the first `receive`.
  public init(
    target: RedisTarget, nodeID: String, timeouts: RedisTimeouts = RedisTimeouts(), metrics: RedisMetrics? = nil
  ) {
    self.nodeID = nodeID
    channels = ShardedSubscriber(target: target, timeouts: timeouts, metrics: metrics)
  }

  /// A subscriber to one Redis at `url`.
  public convenience init(url: RedisURL, nodeID: String, timeouts: RedisTimeouts = RedisTimeouts()) {
    self.init(target: .single(url), nodeID: nodeID, timeouts: timeouts)
  }

  /// Closes the connections (a later `receive` subscribes again).
  public func close() { channels.close() }

  /// Subscribes to the presence channels of `rooms` not followed yet (at the next `receive`).
  public func follow(_ rooms: [String]) {
    self.rooms.formUnion(rooms)
    channels.subscribe(rooms.map { ClusterKeys(room: $0).presence })
  }

  /// Unsubscribes from the presence channels of `rooms`.
  public func unfollow(_ rooms: [String]) {
    self.rooms.subtract(rooms)
    channels.unsubscribe(rooms.map { ClusterKeys(room: $0).presence })
  }

  /// Waits up to `waitSeconds` for messages, then returns the messages of other nodes already
  /// received, at most `limit` replies' worth (so that a flood cannot hold the caller; the rest
  /// wait for the next call), empty when none came in time. Confirmations and own messages are
  /// skipped.
  public func receive(waitSeconds: Double, limit: Int = 4096) throws(RedisError) -> [PresenceMessage] {
    try channels.receive(waitSeconds: waitSeconds, limit: limit).compactMap(message)
  }

  /// A message of another node (`<node>\n<payload>`), or nil.
  private func message(_ event: ShardEvent) -> PresenceMessage? {
    guard case .message(let channel, let body) = event, let room = ClusterKeys.room(ofPresenceChannel: channel),
      let newline = body.firstIndex(of: 0x0A)
    else { return nil }
    let node = String(decoding: body[..<newline], as: UTF8.self)
    guard node != nodeID else { return nil }
    return PresenceMessage(room: room, node: node, payload: Array(body[(newline + 1)...]))
  }
}
