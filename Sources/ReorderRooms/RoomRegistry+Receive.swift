import ReorderBasics

extension RoomRegistry {
  /// One whole frame from a connection.
  public func received(_ connection: ConnectionHandle, message: [UInt8], isBinary: Bool, now: Double) -> [RoomAction] {
    guard var state = connections[connection], !state.closing else { return [] }
    if state.held != nil { return hold(connection, message: message, isBinary: isBinary) }
    defer { if connections[connection] != nil { connections[connection] = state } }
    if state.session == nil {
      state.framesBeforeHello += 1
      state.bytesBeforeHello += message.count
      if state.framesBeforeHello > AccessTimes.maxFramesBeforeHello
        || state.bytesBeforeHello > AccessTimes.maxBytesBeforeHello
      {
        state.closing = true
        return [.close(connection, code: CloseCode.policyViolation, reason: "too much sent before hello")]
      }
    }
    guard state.frames.take(now: now) else {
      messagesReceived["dropped", default: 0] += 1
      var actions = violation(connection, &state, now: now)
      let newBurst = state.lastLimited.map { now - $0 >= 1 } ?? true
      state.lastLimited = now
      if newBurst && !state.closing {
        actions.append(
          .send(connection, ServerMessage.error(ProtocolError(.rateLimited, "too many frames; slow down")), .data))
      }
      return actions
    }
    if isBinary {
      messagesReceived["binary", default: 0] += 1
      return fail(
        connection, &state, ProtocolError(.badMessage, "binary frames are not supported; send JSON text"), now: now)
    }
    let message_: ClientMessage
    do {
      message_ = try ClientMessage.decode(message)
    } catch {
      messagesReceived["invalid", default: 0] += 1
      // The connection state is checked from `type` first: a second hello is `already_joined` and an
      // op or drag before hello is `not_joined`, however malformed the rest of the frame.
      if error.type == "hello", state.session != nil {
        return fail(
          connection, &state, ProtocolError(.alreadyJoined, "hello was already sent on this connection"), now: now)
      }
      if RoomRegistry.joinedTypes.contains(error.type ?? ""), state.session == nil {
        return fail(connection, &state, ProtocolError(.notJoined, "send hello before anything else"), now: now)
      }
      if error.error.code == .unsupportedVersion {
        // Nothing else this client sends can be read in a version the server does not speak.
        state.closing = true
        return refuse(
          connection, error.error, code: CloseCode.unsupportedVersion, reason: "unsupported protocol version")
      }
      if let id = error.opID, state.session != nil {
        counters.opsRejected[error.error.code.rawValue, default: 0] += 1
        return [.send(connection, ServerMessage.rejected(id: id, error: error.error), .data)]
      }
      return fail(connection, &state, error.error, now: now)
    }
    // A view serves joins; anything that needs the board or the catch-up window waits for the full room.
    // (Through the dictionary each time: a copy of the room for every frame would cost retains.)
    if rooms[state.room]?.isView == true,
      rooms[state.room]!.needsFullRoom(for: message_, joined: state.session != nil)
    {
      let actions = upgrade(state.room)  // holds the frames of every connection of the room, this one's too
      state.held = [(message, isBinary)]
      return actions
    }
    switch message_ {
    case .hello: messagesReceived["hello", default: 0] += 1
    case .op: messagesReceived["op", default: 0] += 1
    case .drag: messagesReceived["drag", default: 0] += 1
    case .refresh: messagesReceived["refresh", default: 0] += 1
    case .presence: messagesReceived["presence", default: 0] += 1
    case .broadcast: messagesReceived["broadcast", default: 0] += 1
    case .history: messagesReceived["history", default: 0] += 1
    }
    switch message_ {
    case .hello(let hello):
      guard state.session == nil else {
        return fail(
          connection, &state, ProtocolError(.alreadyJoined, "hello was already sent on this connection"), now: now)
      }
      guard hello.room == state.room else {
        return fail(
          connection, &state,
          ProtocolError(.roomMismatch, "hello.room must be the room of the websocket path /ws/<room>"),
          now: now)
      }
      guard isLoaded(state.room) else {
        // Only a room dropped after a storage failure (whose connections are closing) is missing.
        state.closing = true
        return refuse(
          connection, ProtocolError(.roomUnavailable, "the room could not be loaded; see the server log"),
          code: CloseCode.internalError, reason: "room unavailable")
      }
      let admitted: (hello: Hello, access: Access?)
      switch admit(hello, connection, &state, now: now) {
      case .success(let value): admitted = value
      case .failure(let refusal): return refusal.actions
      }
      let session = sessionPrefix + String(nextSession)
      nextSession += 1
      // The welcome states the room's interval as it is with this member in.
      rooms[state.room]!.pace(
        presencePacing, connections: connections.count, audience: dragAudience, now: now, joining: 1)
      var actions = rooms[state.room]!.join(
        connection, hello: admitted.hello, session: session, visible: admitted.access?.presence ?? true,
        role: admitted.access?.role ?? .editor, expiresIn: admitted.access?.expiresIn,
        subject: admitted.access?.subject)
      if inPlace(state.room, { $0.members[connection] != nil }) == true {
        actions.append(contentsOf: rooms[state.room]!.linkJoined(connection))
        state.session = session
      } else {
        state.closing = true
      }
      return actions
    case .op(var request):
      request.at = wallClock()
      guard state.session != nil else {
        return fail(connection, &state, ProtocolError(.notJoined, "send hello before anything else"), now: now)
      }
      if state.readOnly {
        counters.opsRejected[ErrorCode.readOnly.rawValue, default: 0] += 1
        return [
          .send(
            connection,
            ServerMessage.rejected(
              id: request.id, error: ProtocolError(.readOnly, "this connection's token is a viewer's: it cannot edit")),
            .data)
        ]
      }
      guard state.ops.take(now: now) else {
        counters.opsRejected[ErrorCode.rateLimited.rawValue, default: 0] += 1
        var actions: [RoomAction] = [
          .send(
            connection,
            ServerMessage.rejected(
              id: request.id,
              error: ProtocolError(.rateLimited, "more than \(limits.maxOpsPerSecond) ops per second; re-send later")),
            .data)
        ]
        actions.append(contentsOf: violation(connection, &state, now: now))
        return actions
      }
      return performOp(request, from: connection, room: state.room)
    case .drag(let drag):
      guard state.session != nil else {
        return fail(connection, &state, ProtocolError(.notJoined, "send hello before anything else"), now: now)
      }
      // An invisible observer's drags are not relayed.
      if state.access?.presence == false { return [] }
      return rooms[state.room]?.drag(drag, from: connection) ?? []
    case .refresh(let token):
      guard state.session != nil else {
        return fail(connection, &state, ProtocolError(.notJoined, "send hello before anything else"), now: now)
      }
      return refresh(token, connection, &state, now: now)
    case .presence(let presenceState):
      guard state.session != nil else {
        return fail(connection, &state, ProtocolError(.notJoined, "send hello before anything else"), now: now)
      }
      // An invisible observer's state is not relayed, like its drags.
      if state.access?.presence == false { return [] }
      return rooms[state.room]?.setPresenceState(presenceState, from: connection) ?? []
    case .broadcast(let event):
      guard state.session != nil else {
        return fail(connection, &state, ProtocolError(.notJoined, "send hello before anything else"), now: now)
      }
      if state.access?.broadcast == false {
        return [
          .send(
            connection,
            ServerMessage.error(ProtocolError(.forbidden, "this connection's token does not allow broadcasts")),
            .data)
        ]
      }
      guard state.broadcasts.take(now: now) else {
        var actions: [RoomAction] = [
          .send(
            connection,
            ServerMessage.error(
              ProtocolError(
                .rateLimited, "more than \(limits.maxBroadcastsPerSecond) broadcasts per second; send later")),
            .data)
        ]
        actions.append(contentsOf: violation(connection, &state, now: now))
        return actions
      }
      // An invisible observer's broadcasts are not relayed (they would name its session).
      if state.access?.presence == false { return [] }
      return rooms[state.room]?.broadcast(event, from: connection) ?? []
    case .history(let request):
      guard state.session != nil else {
        return fail(connection, &state, ProtocolError(.notJoined, "send hello before anything else"), now: now)
      }
      return [.history(historyRead(room: state.room, connection: connection, request: request))]
    }
  }

  /// Message types that need a successful hello first (`not_joined` before it, however
  /// malformed the rest of the frame).
  static let joinedTypes: Set<String> = ["op", "drag", "refresh", "presence", "broadcast", "history"]

  /// Keeps a frame of a connection whose room is loading (see `maxHeldFrames`).
  func hold(_ connection: ConnectionHandle, message: [UInt8], isBinary: Bool) -> [RoomAction] {
    guard connections[connection]!.held!.count < RoomRegistry.maxHeldFrames else {
      connections[connection]!.closing = true
      connections[connection]!.held = nil
      return [
        .close(connection, code: CloseCode.policyViolation, reason: "too many messages before the welcome"),
        .logLine(.warn, "closed connection flooding a loading room", [("connection", "\(connection)")]),
      ]
    }
    connections[connection]!.held!.append((message, isBinary))
    return []
  }

  /// An `error` frame for a bad frame; counts as a violation.
  func fail(_ connection: ConnectionHandle, _ state: inout Connection, _ error: ProtocolError, now: Double)
    -> [RoomAction]
  {
    var actions: [RoomAction] = [
      .send(connection, ServerMessage.error(error), .data),
      .logLine(.debug, "bad frame", [("connection", "\(connection)"), ("code", error.code.rawValue)]),
    ]
    actions.append(contentsOf: violation(connection, &state, now: now))
    return actions
  }

  /// Counts a violation; when they come faster than the op rate for long (more than
  /// `RoomLimits.violationSeconds` of the op rate saved up), the connection is closed.
  func violation(_ connection: ConnectionHandle, _ state: inout Connection, now: Double) -> [RoomAction] {
    guard !state.violations.take(now: now), !state.closing else { return [] }
    state.closing = true
    return [
      .close(connection, code: CloseCode.policyViolation, reason: "too many bad or rate-limited messages"),
      .logLine(.warn, "closed abusive connection", [("connection", "\(connection)"), ("room", state.room)]),
    ]
  }
}
