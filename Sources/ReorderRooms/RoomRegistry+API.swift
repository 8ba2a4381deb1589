import ReorderBasics

extension RoomRegistry {
  /// Closes the connections of `room` (only those whose token names `subject`, when given) with
  /// 4100 `access changed`: an app revoking someone. Returns how many were closed.
  public func disconnect(room name: String, subject: String?) -> (count: Int, actions: [RoomAction]) {
    var actions: [RoomAction] = []
    for (connection, state) in connections where state.room == name && !state.closing {
      if let subject, state.access?.subject != subject { continue }
      connections[connection]!.closing = true
      actions.append(.close(connection, code: CloseCode.accessChanged, reason: "access changed"))
    }
    let count = actions.count
    if count > 0 { actions.append(.log(.info, "disconnected by the API", [("room", name), ("count", "\(count)")])) }
    return (count, actions)
  }

  /// Connections open to `room` (joined or not).
  public func onlineCount(room name: String) -> Int { attached[name] ?? 0 }
}
