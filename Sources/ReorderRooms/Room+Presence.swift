extension Room {
  /// A `drag` from a member: record it (latest wins); it goes out at the next tick.
  public mutating func drag(_ drag: DragMessage, from connection: ConnectionHandle) -> [RoomAction] {
    guard let member = members[connection] else { return [] }
    if !drag.phase.isFinal && !board.hasLiveItem(drag.item) {
      return [
        .send(
          connection, ServerMessage.error(ProtocolError(.unknownItem, "drag of an item that does not exist")), .data)
      ]
    }
    presence.update(member.peer, drag)
    return []
  }

  /// The presence tick: one `drags` frame per welcomed member with the others' changes since the
  /// last tick. Sent with `.presence` priority (droppable) unless it ends or cancels a drag.
  public mutating func flushPresence() -> [RoomAction] {
    guard presence.hasPending else { return [] }
    let updates = presence.flush()
    let sessions = Set(updates.map(\.session))
    let anyFinal = updates.contains { $0.isFinal }
    let shared = ServerMessage.drags(updates.map(\.update))
    var plain: [ConnectionHandle] = []
    var actions: [RoomAction] = []
    for member in members.values where member.welcomedAt != nil {
      if sessions.contains(member.peer.session) {
        let own = updates.filter { $0.session != member.peer.session }
        guard !own.isEmpty else { continue }
        let priority: FramePriority = own.contains { $0.isFinal } ? .data : .presence
        actions.append(.send(member.connection, ServerMessage.drags(own.map(\.update)), priority))
      } else {
        plain.append(member.connection)
      }
    }
    if !plain.isEmpty { actions.append(.broadcast(plain, shared, anyFinal ? .data : .presence)) }
    return actions
  }

  /// A snapshot of the board if ops were applied since the last one (when unloading or shutting down).
  public mutating func finalSnapshot() -> [RoomAction] {
    guard opsSinceSnapshot > 0 else { return [] }
    opsSinceSnapshot = 0
    return [.snapshot(room: name, seq: seq, bytes: board.snapshot())]
  }
}
