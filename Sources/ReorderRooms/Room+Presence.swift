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

  /// The presence tick: one `drags` frame per welcomed member with the others' changes since its
  /// last frame. Sent with `.presence` priority (droppable) unless it ends or cancels a drag.
  ///
  /// A member whose connection is `busy` (has not drained what it was sent) gets nothing now: its
  /// updates wait in `presenceBacklog`, latest per session, and go out in one frame once it is not
  /// busy. So a slow connection sees fewer, fresher frames instead of a growing queue of stale ones.
  public mutating func flushPresence(busy: (ConnectionHandle) -> Bool = { _ in false }) -> [RoomAction] {
    let updates = presence.hasPending ? presence.flush() : []
    guard !updates.isEmpty || !presenceBacklog.isEmpty else { return [] }
    let sessions = Set(updates.map(\.session))
    var plain: [ConnectionHandle] = []
    var actions: [RoomAction] = []
    for member in members.values where member.welcomedAt != nil {
      let connection = member.connection
      let fresh =
        sessions.contains(member.peer.session) ? updates.filter { $0.session != member.peer.session } : updates
      if presenceBacklog[connection] == nil {
        if fresh.isEmpty { continue }
        if !busy(connection) {
          if fresh.count == updates.count {
            plain.append(connection)
          } else {
            actions.append(Room.dragsFrame(connection, fresh))
          }
          continue
        }
      }
      var backlog = presenceBacklog[connection] ?? []
      for update in fresh {
        if let i = backlog.firstIndex(where: { $0.session == update.session }) {
          backlog[i] = update
        } else {
          backlog.append(update)
        }
      }
      if busy(connection) {
        presenceBacklog[connection] = backlog
      } else {
        presenceBacklog[connection] = nil
        actions.append(Room.dragsFrame(connection, backlog))
      }
    }
    if !plain.isEmpty {
      let anyFinal = updates.contains { $0.isFinal }
      actions.append(.broadcast(plain, ServerMessage.drags(updates.map(\.update)), anyFinal ? .data : .presence))
    }
    return actions
  }

  static func dragsFrame(_ connection: ConnectionHandle, _ updates: [PresenceUpdate]) -> RoomAction {
    .send(connection, ServerMessage.drags(updates.map(\.update)), updates.contains { $0.isFinal } ? .data : .presence)
  }

  /// A snapshot of the board if ops were applied since the last one (when unloading or shutting down).
  public mutating func finalSnapshot() -> [RoomAction] {
    guard opsSinceSnapshot > 0 else { return [] }
    opsSinceSnapshot = 0
    return [.snapshot(room: name, seq: seq, bytes: board.snapshot())]
  }
}
