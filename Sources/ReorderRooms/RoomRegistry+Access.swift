import ReorderBasics

extension RoomRegistry {
  /// A hello's token, when the server checks tokens: the access it gives and the hello with the
  /// token's identity (its `name` and `color` win over hello's), or the actions that refuse it
  /// (`error unauthorized` + 4401, `error forbidden` + 4403; counted by reason).
  func admit(_ hello: Hello, _ connection: ConnectionHandle, _ state: inout Connection, now: Double)
    -> Result<(hello: Hello, access: Access?), Refusal>
  {
    guard let accessVerifier else { return .success((hello, nil)) }
    guard let token = hello.token, !token.isEmpty else {
      return .failure(
        deny(
          connection, &state,
          AccessDenial(forbidden: false, reason: "missing", message: "token missing: send hello.token")))
    }
    guard token.utf8.count <= WireLimits.maxTokenBytes else {
      return .failure(
        deny(
          connection, &state,
          AccessDenial(
            forbidden: false, reason: "too_large", message: "token too large: at most \(WireLimits.maxTokenBytes) bytes"
          )))
    }
    switch accessVerifier.verify(token: token, room: state.room) {
    case .failure(let denial):
      return .failure(deny(connection, &state, denial))
    case .success(let access):
      var seen = hello
      if let name = access.name { seen.name = name }
      if let color = access.color { seen.color = color }
      state.access = access
      state.generation += 1
      schedule(connection, &state, access, now: now)
      return .success((seen, access))
    }
  }

  /// The actions that refuse a connection's token.
  struct Refusal: Error {
    let actions: [RoomAction]
  }

  private func deny(_ connection: ConnectionHandle, _ state: inout Connection, _ denial: AccessDenial) -> Refusal {
    authFailures[denial.reason, default: 0] += 1
    state.closing = true
    let error = ProtocolError(denial.forbidden ? .forbidden : .unauthorized, denial.message)
    return Refusal(actions: [
      .send(connection, ServerMessage.error(error), .data),
      .close(
        connection, code: denial.forbidden ? CloseCode.forbidden : CloseCode.unauthorized,
        reason: denial.forbidden ? "forbidden" : "unauthorized"),
      .logLine(.info, "token refused", [("connection", "\(connection)"), ("reason", denial.reason)]),
    ])
  }

  /// `refresh {token}`: a new token for the same subject and room. Its role applies at once and its
  /// expiry replaces the old one (`refreshed {role, expires_in_s}`); a bad one gets `error
  /// unauthorized` and the old token's rights stay until it expires.
  func refresh(_ token: String, _ connection: ConnectionHandle, _ state: inout Connection, now: Double) -> [RoomAction]
  {
    guard let accessVerifier, let current = state.access else {
      return [
        .send(
          connection, ServerMessage.error(ProtocolError(.badMessage, "this server does not use tokens")), .data)
      ]
    }
    let result: Result<Access, AccessDenial> =
      token.utf8.count > WireLimits.maxTokenBytes
      ? .failure(AccessDenial(forbidden: false, reason: "too_large", message: "token too large"))
      : accessVerifier.verifyRefresh(token: token, current: current, room: state.room)
    switch result {
    case .failure(let denial):
      authFailures[denial.reason, default: 0] += 1
      return [
        .send(
          connection, ServerMessage.error(ProtocolError(.unauthorized, "refresh refused: " + denial.message)), .data)
      ]
    case .success(let access):
      state.access = access
      state.generation += 1
      schedule(connection, &state, access, now: now)
      return [
        .send(connection, ServerMessage.refreshed(role: access.role.rawValue, expiresIn: access.expiresIn), .data)
      ]
    }
  }

  /// Queues the `token_expiring` notice and the close of an expired token, at `exp` plus the
  /// leeway: `access.expiresIn` is negative for a token already past its `exp` (a join within the
  /// leeway), so such a connection is closed when the leeway runs out, not a leeway after the join.
  /// The connection's state is the caller's copy (written back when its frame is done), so the
  /// expiry goes into `state`.
  private func schedule(_ connection: ConnectionHandle, _ state: inout Connection, _ access: Access, now: Double) {
    let expiry = now + access.expiresIn
    let generation = state.generation
    state.expiresAt = expiry
    deadlines.add(
      .init(
        time: max(now, expiry - AccessTimes.expiringNotice), connection: connection, kind: .tokenExpiring,
        generation: generation))
    deadlines.add(
      .init(time: expiry + access.leeway, connection: connection, kind: .tokenExpired, generation: generation))
  }

  /// The deadlines due at `now`: hello timeouts close (4408), expiring tokens get `token_expiring`,
  /// expired ones close (4401 `token expired`). Void ones (a connection gone, or that refreshed its
  /// token since) are dropped.
  func dueDeadlines(now: Double) -> [RoomAction] {
    guard let next = deadlines.next, next <= now else { return [] }
    var actions: [RoomAction] = []
    for entry in deadlines.popDue(now: now) {
      guard let state = connections[entry.connection], !state.closing else { continue }
      switch entry.kind {
      case .helloTimeout:
        guard state.session == nil, state.access == nil else { continue }
        connections[entry.connection]!.closing = true
        actions.append(.close(entry.connection, code: CloseCode.helloTimeout, reason: "hello timeout"))
      case .tokenExpiring:
        guard entry.generation == state.generation, let expiresAt = state.expiresAt else { continue }
        actions.append(
          .send(entry.connection, ServerMessage.tokenExpiring(expiresIn: max(0, expiresAt - now)), .data))
      case .tokenExpired:
        guard entry.generation == state.generation else { continue }
        connections[entry.connection]!.closing = true
        actions.append(.close(entry.connection, code: CloseCode.unauthorized, reason: "token expired"))
        actions.append(.logLine(.info, "token expired", [("connection", "\(entry.connection)")]))
      }
    }
    return actions
  }

  /// `nextDeadline` when a deadline was queued since the last call (a connection opened, a hello
  /// or a refresh came), else nil: the server asks for a tick only then, not on every frame.
  public func takeNewDeadline() -> Double? {
    guard deadlines.added else { return nil }
    deadlines.added = false
    return nextDeadline
  }

  /// When the next hello timeout or token deadline is due (the server asks for a tick then); void
  /// deadlines at the front (connections gone, joined, or with a newer token) are dropped first.
  public var nextDeadline: Double? {
    while let first = deadlines.first, !isLive(first) { deadlines.removeFirst() }
    return deadlines.next
  }

  /// Whether a deadline still applies to its connection.
  private func isLive(_ entry: DeadlineQueue.Entry) -> Bool {
    guard let state = connections[entry.connection], !state.closing else { return false }
    switch entry.kind {
    case .helloTimeout: return state.session == nil && state.access == nil
    case .tokenExpiring, .tokenExpired: return entry.generation == state.generation
    }
  }

  /// Tokens refused so far, by reason.
  public var tokenFailures: [String: Int] { authFailures }
}
