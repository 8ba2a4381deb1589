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

extension RoomRegistry {
  /// The visible members of `room` as the API lists them: `session`, `sub` (with tokens), `name`,
  /// `color`, and `drag` while they drag; nil when the room is not loaded (nobody is in it).
  public func presence(room name: String) -> [JSONValue]? {
    guard let room = rooms[name] else { return nil }
    return room.members.values.filter(\.visible).sorted { $0.peer.session < $1.peer.session }.map { member in
      var fields: [(key: String, value: JSONValue)] = [("session", .string(member.peer.session))]
      if let sub = connections[member.connection]?.access?.subject { fields.append(("sub", .string(sub))) }
      fields.append(("name", .string(member.peer.name)))
      fields.append(("color", .string(member.peer.color)))
      if let drag = room.presence.current[member.peer.session]?.drag {
        fields.append(("drag", Presence.dragJSON(drag)))
      }
      return .object(fields)
    }
  }
}
