/// The presence channel of the registries of one process, as a pure model: what the in-process
/// presence port (`LocalPresenceChannel`) runs, the other one being Redis pub/sub
/// (`ClusterAdapter`); tests run it with several registries. A node's publish reaches
/// every other node following the room, in order and without loss; a node that starts following a
/// room gets the other nodes' sessions in its roster. With one registry (one node) there is nobody
/// else: nothing is ever delivered. Pure: no I/O.
///
/// Invariant: a room's roster holds only sessions of nodes that follow the room.
public struct LocalPresence: Sendable {
  /// What to hand to a node's registry.
  public enum Delivery: Sendable, Equatable {
    /// `RoomRegistry.presenceReceived(room:node:message:now:)` of node `to`.
    case message(to: String, room: String, from: String, PresenceMessage)
    /// `RoomRegistry.roster(room:entries:now:)` of node `to`.
    case roster(to: String, room: String, entries: [[UInt8]])

    /// The node to hand it to.
    public var to: String {
      switch self {
      case .message(let to, _, _, _), .roster(let to, _, _): to
      }
    }
  }

  /// One room's followers and roster.
  struct Channel: Sendable {
    /// The nodes following the room, in the order they started.
    var followers: [String] = []
    /// Roster entries by session, with the node that added each.
    var roster: [String: (node: String, entry: [UInt8])] = [:]
  }

  var channels: [String: Channel] = [:]

  /// No node follows any room.
  public init() {}

  /// Performs `node`'s action; returns what to deliver, in order.
  public mutating func perform(_ action: PresenceAction, node: String) -> [Delivery] {
    switch action {
    case .follow(let room):
      var channel = channels[room] ?? Channel()
      if !channel.followers.contains(node) { channel.followers.append(node) }
      channels[room] = channel
      // A node's own sessions are no news to it; a channel that loses nothing needs no roster
      // read to drop sessions that left (their leaves were delivered).
      let entries = channel.roster.filter { $0.value.node != node }.sorted { $0.key < $1.key }.map(\.value.entry)
      return entries.isEmpty ? [] : [.roster(to: node, room: room, entries: entries)]
    case .unfollow(let room):
      guard var channel = channels[room] else { return [] }
      channel.followers.removeAll { $0 == node }
      channel.roster = channel.roster.filter { $0.value.node != node }
      channels[room] = channel.followers.isEmpty ? nil : channel
    case .publish(let room, let message):
      guard let channel = channels[room] else { return [] }
      return channel.followers.filter { $0 != node }.map { .message(to: $0, room: room, from: node, message) }
    case .rosterJoin(let room, let session, let peer):
      guard channels[room]?.followers.contains(node) == true else { return [] }
      channels[room]?.roster[session] = (node, peer)
    case .rosterLeave(let room, let session):
      guard channels[room]?.roster[session]?.node == node else { return [] }
      channels[room]?.roster[session] = nil
    }
    return []
  }
}
