import ReorderRooms

/// One node's presence channel: the local implementation of the presence port (the other is
/// `ClusterAdapter`, over Redis pub/sub), over `LocalPresence`. The node is the channel's only
/// follower, so a publish reaches nobody and a follow finds no other node's session; what would be
/// delivered is handed over later on the service thread (`PortAnswers.post`), as Redis' is.
/// Service thread only.
public final class LocalPresenceChannel: PresencePort {
  private var channel = LocalPresence()
  /// This node's id (the registry's `RoomNode.node`).
  public let node: String
  /// Where deliveries go (the driver, which owns this channel).
  public weak var receiver: (any PortAnswers)?

  /// The channel of `node`.
  public init(node: String) { self.node = node }

  public func perform(_ action: PresenceAction) {
    let deliveries = channel.perform(action, node: node).filter { $0.to == node }
    guard !deliveries.isEmpty, let receiver else { return }
    receiver.post { [weak receiver] in
      guard let receiver else { return }
      for delivery in deliveries {
        switch delivery {
        case .roster(_, let room, let entries):
          receiver.rosterRead(room: room, entries: entries)
        case .message(_, let room, let from, let message):
          receiver.presenceReceived(room: room, node: from, payload: message.encoded())
        }
      }
    }
  }
}
