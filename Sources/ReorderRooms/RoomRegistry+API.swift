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
    if count > 0 {
      actions.append(.logLine(.info, "disconnected by the API", [("room", name), ("count", "\(count)")]))
    }
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

/// Whether a room can take the HTTP API's writes now (see `RoomRegistry.openForAPI`).
public enum APIRoomState: Sendable, Equatable {
  /// Loaded: call `applyAPIOps` now.
  case ready
  /// Being loaded: call again after `loaded(room:result:now:)`.
  case loading
  /// The server has `--max-rooms` rooms open.
  case refused(ProtocolError)
}

/// A board the API created, as the driver stores it and answers.
public struct CreatedBoard: Sendable {
  /// The new history's id and last seq.
  public var epoch: String
  public var seq: UInt64
  /// `welcome.board` of the new board.
  public var board: JSONValue
  /// Ops 1…seq and the snapshot at seq: stored as one step (`BoardWrites.putBoard`).
  public var entries: [LogEntry]
  public var snapshot: RoomSnapshot
  /// The figures for the board list.
  public var summary: BoardSummary
  /// Whether a board with stored ops was replaced.
  public var replaced: Bool
}

extension RoomRegistry {
  /// Makes sure `room` is in memory for an API write: `.ready`, or `.loading` with a `.load`
  /// among the actions when it was not (call again once `loaded(room:result:now:)` was handled).
  /// A room loaded only for the API is unloaded once idle, as any room nobody is in.
  public func openForAPI(_ name: String) -> (state: APIRoomState, actions: [RoomAction]) {
    if let room = rooms[name] {
      guard room.isView else { return (.ready, []) }
      return (.loading, upgrade(name))
    }
    if loading[name] != nil { return (.loading, []) }
    guard rooms.count + loading.count < limits.maxRooms else {
      return (.refused(ProtocolError(.serverFull, "the server has too many rooms open; try again later")), [])
    }
    loading[name] = []
    return (
      .loading,
      [
        .load(
          RoomLoad(
            room: name, remembering: RoomLoad.remembering(limits), boards: boards, limits: limits,
            node: log.node.node, compactEvery: log.node.compactEvery,
            resolvedOps: log.node.keepsResolvedOps))
      ]
    )
  }

  /// How a board of `room` is rebuilt from storage as this server's rooms are (one node or cluster
  /// mode), for reads that do not open the room (`RoomLoad.boardAt`: `GET …?at=`, the history's
  /// base).
  public func historyLoad(room name: String) -> RoomLoad {
    var load = RoomLoad(
      room: name, remembering: 0, boards: boards, limits: limits, node: log.node.node,
      compactEvery: log.node.compactEvery, resolvedOps: log.node.keepsResolvedOps)
    load.encodesBoard = false
    return load
  }
}

extension RoomRegistry {
  /// The epoch of a loaded room (without copying the room).
  public func epoch(room name: String) -> String? { inPlace(name) { $0.epoch } }

  /// The figures of a loaded room for the board list (without copying the room); nil for a view,
  /// which has not counted its board (the stored summary holds).
  public func summary(room name: String) -> BoardSummary? {
    inPlace(name) { $0.isView ? nil : $0.summary } ?? nil
  }
}
