import ReorderTransport

/// What the server learned of a websocket at its upgrade: the room it asked for (or why its path is
/// not one) and where it comes from. The transport hands it back when the websocket opens.
struct Admission: Sendable, Equatable {
  /// The room of `/ws/<room>`, or the close reason for a path that names none.
  enum Target: Sendable, Equatable {
    case room(String)
    case invalid(reason: String)
  }

  let target: Target
  /// The TCP peer.
  let peerAddress: String

  /// Decides an upgrade. A bad room name is accepted and then closed with 1008 and its reason
  /// (`invalid room name: …`), so that browsers, which cannot read an HTTP refusal, see why.
  static func decide(_ request: UpgradeRequest) -> UpgradeDecision {
    let target: Target
    switch RoomPath.parse(decodedPath: request.path) {
    case .success(let room): target = .room(room)
    case .failure(let refusal): target = .invalid(reason: refusal.reason)
    }
    return .accept(context: Admission(target: target, peerAddress: request.peerAddress))
  }
}
