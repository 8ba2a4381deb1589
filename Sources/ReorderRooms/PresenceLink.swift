/// A room's presence shared with the other nodes following it, through the presence channel
/// (`PresenceAction`; `Room.link`): the sessions other nodes have in the room, and this node's
/// changes waiting to be published (`Room+PresenceLink.swift`).
///
/// Invariant: `remote` holds no session of this node.
struct PresenceLink: Sendable {
  /// A session on another node, as this room knows it.
  struct RemotePeer: Sendable {
    var peer: PeerInfo
    /// When it was last heard of from a presence message (the registry's clock), for
    /// `RoomNode.rosterGrace`; -inf when only the roster lists it.
    var heardAt: Double
  }

  /// Other nodes' sessions in the room, by session.
  var remote: [String: RemotePeer] = [:]
  /// This node's presence changes since the last publish.
  var outbox = PresenceMessage()
  /// Paces the publishes of drags at the room's presence rate (joins and leaves go at once).
  var publishes: TokenBucket?
}
