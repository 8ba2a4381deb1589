import ReorderBasics

extension Room {
  /// A connection said `hello`: add it, tell the others, send its welcome now or once durable.
  /// The registry has checked that `hello.room` matches and that the connection is not yet joined.
  ///
  /// In a small room the others get a `peer` frame at once; in a large one (more than
  /// `RoomLimits.largeRoomMembers` members, or while notices wait) the join is a notice for the
  /// next presence flush, so a join costs O(1) here.
  ///
  /// An invisible member (`visible` false: a token's `presence: false`) receives everything but is
  /// left out of peers (no join or leave notice, not listed, not counted). `role` and `expiresIn`
  /// (its token's) go into its welcome; `subject` (its token's `sub`) goes into its ops' records.
  public mutating func join(
    _ connection: ConnectionHandle, hello: Hello, session: String, visible: Bool = true,
    role: Access.Role = .editor, expiresIn: Double? = nil, subject: String? = nil
  ) -> [RoomAction] {
    guard members.count < limits.maxConnectionsPerRoom else {
      return [
        .send(connection, ServerMessage.error(ProtocolError(.roomFull, "this room is full; try again later")), .data),
        .close(connection, code: CloseCode.tryAgainLater, reason: "room full"),
      ]
    }
    let peer = PeerInfo(session: session, name: hello.name, color: hello.color)
    var member = Member(
      connection: connection, peer: peer, client: hello.client, since: hello.since, epoch: hello.epoch, joinSeq: seq)
    member.visible = visible
    member.role = role
    member.expiresIn = expiresIn
    member.subject = subject
    var actions: [RoomAction] = []
    presence.isLarge = members.count + 1 + remotePeerCount > limits.largeRoomMembers
    // Nobody hears of an invisible member.
    if visible { actions.append(contentsOf: announceJoin(peer)) }
    if visible { roster.append(connection) }
    if durability.isEmpty {
      members[connection] = member
      actions.append(contentsOf: sendWelcome(connection))
    } else {
      if !canCatchUp(since: hello.since, epoch: hello.epoch, to: seq) { member.capturedBoard = encodedBoard() }
      members[connection] = member
    }
    actions.append(.logLine(.info, "joined", [("room", name), ("session", session), ("connection", "\(connection)")]))
    return actions
  }

  /// A connection left (closed for any reason): cancel its drag, tell the others (at once in a
  /// small room, at the next presence flush in a large one).
  public mutating func leave(_ connection: ConnectionHandle, now: Double) -> [RoomAction] {
    guard let member = members.removeValue(forKey: connection) else { return [] }
    roster.remove(connection)
    presence.removeRecipient(connection)
    presence.cancel(member.peer)
    states.remove(member.peer.session)
    if members.isEmpty { idleSince = now }
    var actions: [RoomAction] = []
    // Nobody heard of an invisible member joining.
    if member.visible { actions.append(contentsOf: announceLeave(member.peer)) }
    presence.isLarge = members.count + remotePeerCount > limits.largeRoomMembers
    actions.append(.logLine(.info, "left", [("room", name), ("session", member.peer.session)]))
    return actions
  }

  /// Tells the others of a peer that joined: a `peer` frame at once in a small room, a notice for
  /// the next presence flush in a large one (or while notices wait).
  mutating func announceJoin(_ peer: PeerInfo) -> [RoomAction] {
    if presence.isLarge || presence.hasNotices {
      presence.notice(peer, joined: true)
      return []
    }
    let others = welcomed()
    var actions: [RoomAction] = []
    if !others.isEmpty {
      actions.append(
        .broadcast(
          others, ServerMessage.peer(event: "join", session: peer.session, name: peer.name, color: peer.color), .data))
      counters.peerFramesSent += others.count
    }
    presence.announce(peer.session, to: others)
    return actions
  }

  /// Tells the others of a peer that left (as `announceJoin`).
  mutating func announceLeave(_ peer: PeerInfo) -> [RoomAction] {
    if presence.isLarge || presence.hasNotices {
      presence.notice(peer, joined: false)
      return []
    }
    let others = welcomed()
    var actions: [RoomAction] = []
    if !others.isEmpty {
      let frame = ServerMessage.peer(event: "leave", session: peer.session, name: peer.name, color: peer.color)
      actions.append(.broadcast(others, frame, .data))
      counters.peerFramesSent += others.count
    }
    presence.forget(peer.session, told: others)
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

  /// The `peers` of a welcome: at most `Presence.listedPeers` others, those dragging first (in
  /// session order, with their drag), then the others in join order.
  /// - Complexity: O(d log d + listedPeers) for d drags in progress.
  func peersJSON(except connection: ConnectionHandle) -> (json: [JSONValue], sessions: [String]) {
    let limit = Presence.listedPeers
    let own = members[connection]?.peer.session
    var out: [JSONValue] = []
    var sessions: [String] = []
    var dragging: Set<String> = []
    for (session, entry) in presence.current.sorted(by: { $0.key < $1.key }) {
      guard out.count < limit else { break }
      guard session != own else { continue }
      out.append(Room.peerJSON(entry.peer, drag: entry.drag))
      sessions.append(session)
      dragging.insert(session)
    }
    roster.forEach { other in
      guard out.count < limit else { return false }
      if other != connection, let peer = members[other]?.peer, !dragging.contains(peer.session) {
        out.append(Room.peerJSON(peer, drag: nil))
        sessions.append(peer.session)
      }
      return true
    }
    // Then the peers on other nodes, in session order.
    for session in link.remote.keys.sorted() where out.count < limit {
      if !dragging.contains(session), let peer = link.remote[session]?.peer {
        out.append(Room.peerJSON(peer, drag: nil))
        sessions.append(session)
      }
    }
    return (out, sessions)
  }

  static func peerJSON(_ peer: PeerInfo, drag: DragMessage?) -> JSONValue {
    var fields: [(key: String, value: JSONValue)] = [
      ("session", .string(peer.session)), ("name", .string(peer.name)), ("color", .string(peer.color)),
    ]
    if let drag { fields.append(("drag", Presence.dragJSON(drag))) }
    return .object(fields)
  }

  /// Sends the welcome of a member whose join seq is durable.
  mutating func sendWelcome(_ connection: ConnectionHandle) -> [RoomAction] {
    guard var member = members[connection] else { return [] }
    let target = member.joinSeq
    let (peers, listed) = peersJSON(except: connection)
    var welcomePresence = ServerMessage.WelcomePresence(
      peerCount: roster.count - (member.visible ? 1 : 0) + remotePeerCount,
      intervalMilliseconds: presence.intervalMilliseconds,
      role: member.role.rawValue, expiresIn: member.expiresIn.map { Int(max(0, $0).rounded(.down)) })
    welcomePresence.states = states.snapshot(excluding: member.peer.session)
    var frame: [UInt8]?
    // From memory: the catch-up window holds at least the latest `maxCatchUpOps` durable seqs,
    // which is as far back as `canCatchUp` lets a `since` reach.
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
          session: member.peer.session, epoch: epoch, seq: target, ops: ops, peers: peers, presence: welcomePresence)
      }
    }
    if frame == nil {
      let boardBytes = member.capturedBoard ?? encodedBoard()
      frame = ServerMessage.welcome(
        session: member.peer.session, epoch: epoch, seq: target, encodedBoard: boardBytes, peers: peers,
        presence: welcomePresence)
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
    member.capturedBoard = nil
    member.acksAfterWelcome = []
    members[connection] = member
    presence.addRecipient(connection, session: member.peer.session, listed: listed)
    return actions
  }
}
