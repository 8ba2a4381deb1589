/// Custom presence states and broadcasts (`presence {state}`, `broadcast {event}`): states go out
/// with the room's presence flushes, coalesced per session (latest wins) and paced like drags;
/// broadcasts go out at once to the other welcomed members. Neither is stored.
extension Room {
  /// A member's new presence state: it reaches the others at the next flush.
  public mutating func setPresenceState(_ state: JSONValue, from connection: ConnectionHandle) -> [RoomAction] {
    guard let member = members[connection] else { return [] }
    states.set(member.peer.session, state)
    link.outbox.state(member.peer.session, state)
    return []
  }

  /// A member's broadcast: a `broadcast {session, event}` frame to every other welcomed member.
  public mutating func broadcast(_ event: JSONValue, from connection: ConnectionHandle) -> [RoomAction] {
    guard let member = members[connection] else { return [] }
    link.outbox.broadcast(member.peer.session, event)
    return relayBroadcast(session: member.peer.session, event, except: connection) + publishUrgent()
  }

  /// `broadcast {session, event}` to every welcomed member but `except`.
  func relayBroadcast(session: String, _ event: JSONValue, except: ConnectionHandle?) -> [RoomAction] {
    let others = welcomed(except: except)
    guard !others.isEmpty else { return [] }
    let frame = ServerMessage.broadcast(session: session, event: event)
    return [others.count == 1 ? .send(others[0], frame, .data) : .broadcast(others, frame, .data)]
  }

  /// The states that changed since the last flush, as `presence {updates}` frames: each welcomed
  /// member gets the changes of the other sessions (members whose own state did not change share
  /// one frame). Nil when nothing changed.
  mutating func flushPresenceStates() -> [RoomAction] {
    guard states.hasPending else { return [] }
    let updates = states.takePending()
    let changedSessions = Set(updates.map(\.session))
    var sharers: [ConnectionHandle] = []
    var actions: [RoomAction] = []
    for member in members.values where member.welcomedAt != nil {
      if changedSessions.contains(member.peer.session) {
        let own = updates.filter { $0.session != member.peer.session }
        if !own.isEmpty { actions.append(.send(member.connection, ServerMessage.presenceStates(own), .data)) }
      } else {
        sharers.append(member.connection)
      }
    }
    if !sharers.isEmpty {
      let frame = ServerMessage.presenceStates(updates)
      actions.append(sharers.count == 1 ? .send(sharers[0], frame, .data) : .broadcast(sharers, frame, .data))
    }
    return actions
  }
}
