/// What a registry asks of its rooms' presence channel, shared by the nodes that follow a room:
/// returned inside `RoomAction.presence`; what other nodes publish comes back through
/// `RoomRegistry.presenceReceived(room:node:message:now:)` and `RoomRegistry.roster(room:entries:now:)`.
/// Two implementations of its port (`PresencePort`): `LocalPresenceChannel` in the process, over the
/// pure `LocalPresence` (which tests also run with several registries), and `ClusterAdapter` over
/// Redis (a sharded pub/sub channel and a roster hash per room).
public enum PresenceAction: Sendable, Equatable {
  /// Deliver the room's messages from other nodes, and its roster (at once, and again from time to
  /// time where messages may be lost).
  case follow(room: String)
  /// Stop delivering the room's presence (the room was unloaded or dropped).
  case unfollow(room: String)
  /// Hand this node's changes of the room to every other node following it (Redis: `SPUBLISH
  /// reorder:{R}:presence "<node>\n<message as JSON>"`).
  case publish(room: String, message: PresenceMessage)
  /// Add or refresh one of this node's sessions in the room's roster (`peer`:
  /// `PresenceMessage.rosterEntry`); Redis keeps refreshing it until `rosterLeave`.
  case rosterJoin(room: String, session: String, peer: [UInt8])
  /// Remove one of this node's sessions from the room's roster.
  case rosterLeave(room: String, session: String)
}
