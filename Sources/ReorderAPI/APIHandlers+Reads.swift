import ReorderBasics
import ReorderRooms
import ReorderTransport

extension APIHandlers {
  /// `/api/v1` (docs/API.md): the key first, then the route. Service thread; answers that need
  /// storage come later from the store's reader thread, through `responder`.
  public func handle(_ request: HTTPRequest, responder counted: HTTPResponder) {
    let match = APIRoutes.match(request.head)
    let label = (try? match.get())?.label ?? APIRoutes.Route.otherLabel
    let responder = apiRequests.counting(counted, route: label, start: MonotonicClock.now())
    guard let apiKeys else {
      responder.respond(
        APIRoutes.Problem(404, "not found", "the HTTP API is off: start the server with --api-key-file").response)
      return
    }
    guard let key = apiKeys.key(authorization: request.head.headers["authorization"]) else {
      responder.respond(APIRoutes.Problem(401, "unauthorized", "send Authorization: Bearer <API key>").response)
      return
    }
    if let wait = apiRateLimit.take(key: key, now: MonotonicClock.now()) {
      let limit = Int(apiRateLimit.rate)
      responder.respond(
        APIRoutes.Problem(
          429, "too many requests",
          "this key made more than \(limit) requests per second (bursts of \(2 * limit)); retry in \(wait) s",
          retryAfter: wait
        ).response)
      return
    }
    switch match {
    case .failure(let problem):
      responder.respond(problem.response)
    case .success(.boards):
      boards(request.head, responder)
    case .success(let write) where write.isWrite:
      apiWrite(write, request, responder)
    case .success(.board(let name)):
      if let at = request.head.queryValue("at") {
        boardAt(name, at, responder)
      } else {
        board(name, responder)
      }
    case .success(.disconnect(let name)):
      disconnect(name, body: request.body, responder)
    case .success(.ops(let name)):
      ops(name, request.head, responder)
    case .success(.history(let name)):
      history(name, request.head, responder)
    case .success(.presence(let name)):
      responder.respond(
        APIRoutes.json(200, .object([("room", .string(name)), ("peers", .array(registry.presence(room: name) ?? []))])))
    case .success(.drain):
      let seconds = drainSeconds
      responder.respond(
        APIRoutes.json(202, .object([("status", .string("draining")), ("drain_seconds", .number(Double(seconds)))])))
      Log.log(.info, "drain requested", ["via": "api"])
      requestDrain?()
    case .success(.createBoard), .success(.deleteBoard), .success(.applyOps):
      preconditionFailure("API writes are routed above")
    }
  }

  /// `GET /api/v1/boards/{room}`: `{room, seq, epoch, board}`, from memory when the room is
  /// loaded with its board decoded, else (not loaded, or a view) read from storage off the service
  /// thread (without loading it into the rooms); 404 for a board with nothing stored.
  private func board(_ name: String, _ responder: HTTPResponder) {
    if let room = registry.room(name), !room.isView {
      // Loaded with nothing stored: joined but never edited.
      guard room.seq > 0 else {
        return responder.respond(APIRoutes.Problem(404, "not found", "no board named \(name)").response)
      }
      responder.respond(
        APIRoutes.json(200, Self.boardJSON(name, seq: room.seq, epoch: room.epoch, board: room.boardJSON())))
      return
    }
    let storage = self.storage
    let boards = boardFactory
    storage.roomNames { result in
      guard case .success(let names) = result else {
        responder.respond(APIRoutes.Problem(503, "storage unavailable", "the board list could not be read").response)
        return
      }
      guard names.contains(name) else {
        responder.respond(APIRoutes.Problem(404, "not found", "no board named \(name)").response)
        return
      }
      RoomLoad(room: name, boards: boards).run(on: storage) { loaded in
        switch loaded {
        case .success(let prepared):
          responder.respond(
            APIRoutes.json(
              200, Self.boardJSON(name, seq: prepared.seq, epoch: prepared.epoch, board: prepared.boardJSON())))
        case .failure(let error):
          responder.respond(APIRoutes.Problem(503, "storage unavailable", "\(error)").response)
        }
      }
    }
  }

  /// `GET /api/v1/boards/{room}/ops?since=S&limit=N` (limit 1…1,000, default 100): the `applied`
  /// messages after seq S, read from storage (in cluster mode from this node's replica,
  /// `replicaOps`); 410 with the earliest seq still kept when the log no
  /// longer reaches back to S + 1 (a client that far behind takes the board instead).
  private func ops(_ name: String, _ head: HTTPRequestHead, _ responder: HTTPResponder) {
    guard let sinceText = head.queryValue("since"), let since = UInt64(sinceText) else {
      responder.respond(APIRoutes.Problem(400, "bad request", "give since=<seq> (a whole number)").response)
      return
    }
    let limitText = head.queryValue("limit") ?? "100"
    guard let limit = Int(limitText), (1...1_000).contains(limit) else {
      responder.respond(APIRoutes.Problem(400, "bad request", "limit takes 1 to 1000").response)
      return
    }
    if readsReplicas { return replicaOps(name, since: since, limit: limit, responder) }
    let storage = self.storage
    storage.roomNames { names in
      guard case .success(let names) = names, names.contains(name) else {
        responder.respond(APIRoutes.Problem(404, "not found", "no board named \(name)").response)
        return
      }
      storage.entries(room: name, after: since, limit: limit) { result in
        switch result {
        case .failure(let error):
          responder.respond(APIRoutes.Problem(503, "storage unavailable", "\(error)").response)
        case .success(let entries):
          if let first = entries.first, first.seq != since + 1 {
            responder.respond(
              APIRoutes.Problem(
                410, "gone", "the log no longer reaches back to seq \(since + 1); the earliest kept is \(first.seq)"
              ).response)
            return
          }
          var out = Array(#"{"room":"#.utf8)
          JSONValue.string(name).write(to: &out)
          out.append(contentsOf: #","ops":["#.utf8)
          var count = 0
          for entry in entries {
            guard let record = try? OpRecord(payload: entry.payload) else { continue }
            if count > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: record.applied(seq: entry.seq))
            count += 1
          }
          out.append(contentsOf: "]}".utf8)
          responder.respond(
            HTTPResponse(
              status: 200, contentType: "application/json", headers: [("cache-control", "no-store")], body: out))
        }
      }
    }
  }

  public static func boardJSON(_ name: String, seq: UInt64, epoch: String, board: JSONValue) -> JSONValue {
    .object([("room", .string(name)), ("seq", .number(Double(seq))), ("epoch", .string(epoch)), ("board", board)])
  }

  /// `POST /api/v1/boards/{room}/disconnect` with `{"sub"?: …}`: closes those connections with
  /// 4100 `access changed`; answers `{"disconnected": n}`.
  private func disconnect(_ name: String, body: [UInt8], _ responder: HTTPResponder) {
    var subject: String?
    if !body.isEmpty {
      guard let value = try? JSONValue.parse(body), case .object = value else {
        responder.respond(APIRoutes.Problem(400, "bad request", "the body must be a JSON object").response)
        return
      }
      switch value["sub"] {
      case nil, .null?: subject = nil
      case .string(let sub)?: subject = sub
      default:
        responder.respond(
          APIRoutes.Problem(
            422, "unprocessable", "sub must be a string",
            extensions: [("code", .string(ErrorCode.wrongType.rawValue)), ("at", .string("sub"))]
          ).response)
        return
      }
    }
    let (count, actions) = registry.disconnect(room: name, subject: subject)
    perform(actions)
    responder.respond(APIRoutes.json(200, .object([("disconnected", .number(Double(count)))])))
  }
}
