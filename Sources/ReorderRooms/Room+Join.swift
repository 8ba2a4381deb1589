extension Room {
  /// A connection said `hello`: add it, tell the others, send its welcome now or once durable.
  /// The registry has checked that `hello.room` matches and that the connection is not yet joined.
  public mutating func join(_ connection: ConnectionHandle, hello: Hello, session: String) -> [RoomAction] {
    guard members.count < limits.maxConnectionsPerRoom else {
      return [
        .send(connection, ServerMessage.error(ProtocolError(.roomFull, "this room is full; try again later")), .data),
        .close(connection, code: CloseCode.tryAgainLater, reason: "room full"),
      ]
    }
    let peer = PeerInfo(session: session, name: hello.name, color: hello.color)
    var member = Member(
      connection: connection, peer: peer, client: hello.client, since: hello.since, epoch: hello.epoch, joinSeq: seq)
    var actions: [RoomAction] = []
    let others = welcomed()
    if !others.isEmpty {
      actions.append(
        .broadcast(
          others, ServerMessage.peer(event: "join", session: session, name: peer.name, color: peer.color), .data))
      counters.peerFramesSent += others.count
    }
    if pending.isEmpty {
      members[connection] = member
      actions.append(contentsOf: sendWelcome(connection))
    } else {
      if !canCatchUp(since: hello.since, epoch: hello.epoch, to: seq) { member.capturedBoard = board.boardJSON() }
      members[connection] = member
    }
    actions.append(.log(.info, "joined", [("room", name), ("session", session), ("connection", "\(connection)")]))
    return actions
  }

  /// A connection left (closed for any reason): cancel its drag, tell the others.
  public mutating func leave(_ connection: ConnectionHandle, now: Double) -> [RoomAction] {
    guard let member = members.removeValue(forKey: connection) else { return [] }
    presence.cancel(member.peer)
    if members.isEmpty { idleSince = now }
    var actions: [RoomAction] = []
    let others = welcomed()
    if !others.isEmpty {
      let frame = ServerMessage.peer(
        event: "leave", session: member.peer.session, name: member.peer.name, color: member.peer.color)
      actions.append(.broadcast(others, frame, .data))
      counters.peerFramesSent += others.count
    }
    actions.append(.log(.info, "left", [("room", name), ("session", member.peer.session)]))
    return actions
  }

  /// Whether `since` can be answered with the ops (since, to] rather than a full board: same history
  /// (the client's epoch equals the room's; a `since` > 0 without an epoch cannot be trusted), not
  /// ahead of the room, not too far behind.
  func canCatchUp(since: UInt64?, epoch clientEpoch: String?, to target: UInt64) -> Bool {
    guard let since, since <= target else { return false }
    guard clientEpoch == epoch || (clientEpoch == nil && since == 0) else { return false }
    return target - since <= UInt64(limits.maxCatchUpOps)
  }

  /// The `peers` of a welcome: everyone else, with their drag in progress.
  func peersJSON(except connection: ConnectionHandle) -> [JSONValue] {
    members.values.sorted { $0.connection < $1.connection }.compactMap { m in
      guard m.connection != connection else { return nil }
      var fields: [(key: String, value: JSONValue)] = [
        ("session", .string(m.peer.session)), ("name", .string(m.peer.name)), ("color", .string(m.peer.color)),
      ]
      if let drag = presence.current[m.peer.session] { fields.append(("drag", Presence.dragJSON(drag))) }
      return .object(fields)
    }
  }

  /// Sends the welcome of a member whose join seq is durable.
  mutating func sendWelcome(_ connection: ConnectionHandle) -> [RoomAction] {
    guard var member = members[connection] else { return [] }
    let target = member.joinSeq
    let peers = peersJSON(except: connection)
    var frame: [UInt8]?
    if canCatchUp(since: member.since, epoch: member.epoch, to: target), let since = member.since {
      var ops: [[UInt8]] = []
      ops.reserveCapacity(Int(target - since))
      var next = since + 1
      while next <= target, let applied = appliedFrame(seq: next) {
        ops.append(applied)
        next += 1
      }
      if next > target {
        frame = ServerMessage.welcome(
          session: member.peer.session, epoch: epoch, seq: target, ops: ops, peers: peers)
      }
    }
    if frame == nil {
      let boardJSON = member.capturedBoard ?? board.boardJSON()
      frame = ServerMessage.welcome(
        session: member.peer.session, epoch: epoch, seq: target, board: boardJSON, peers: peers)
    }
    var actions: [RoomAction] = [.send(connection, frame!, .data)]
    for ack in member.acksAfterWelcome {
      if let applied = appliedFrame(seq: ack) {
        actions.append(.send(connection, applied, .data))
      } else {
        counters.reads += 1
        actions.append(.read(RoomRead(room: name, connection: connection, after: ack - 1, limit: 1)))
      }
    }
    member.welcomedAt = target
    member.presenceTick = presenceTick
    member.capturedBoard = nil
    member.acksAfterWelcome = []
    members[connection] = member
    return actions
  }
}
