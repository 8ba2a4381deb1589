import ReorderBasics
import ReorderRooms
import ReorderTransport

/// The API's writes (`PUT`/`DELETE /api/v1/boards/{room}`, `POST …/ops`), the same on one node and
/// in a cluster. Service thread; nothing here waits:
///
/// - `PUT`: the board is built here (`RoomRegistry.buildBoard`) and written as the room's new
///   history in one step through the `BoardWrites` port (SQLite, or `reorder_board_put`), which
///   decides whether it exists (409); `DELETE` likewise. While a write is out the room takes no op
///   (`RoomRegistry.boardWriteBegan`); once it is stored, the room here (if loaded) reloads it: a
///   fresh `welcome`, or 4404 for a deleted board. Other nodes' replicas learn of it from their
///   tail (`PortAnswers.logHistoryChanged`).
/// - `POST …/ops`: the ops go through the room's log on the loaded room (loaded first, off the
///   service thread, if needed; `RoomRegistry.applyAPIOps`), answered once applied and durable.
///
/// The points where a board is created, replaced and deleted are `boardCreated` and
/// `boardDeleted`, one each, on the node that made the change: what else should happen then
/// (webhooks) goes there.
extension APIHandlers {
  /// Decodes the write's body, then runs it (`POST …/ops` once its room has loaded).
  func apiWrite(_ route: APIRoutes.Route, _ request: HTTPRequest, _ responder: HTTPResponder) {
    switch route {
    case .createBoard(let room):
      guard case .success(let body) = APIBodies.object(request.body) else {
        return responder.respond(APIBodies.notAnObject.response)
      }
      do {
        let content = try BoardContent(body)
        putBoard(room, content, replace: request.head.queryValue("replace") == "true", responder)
      } catch {
        responder.respond(APIBodies.invalid(error).response)
      }
    case .deleteBoard(let room):
      deleteBoard(room, responder)
    case .applyOps(let room):
      switch APIBodies.ops(request.body) {
      case .failure(let problem): responder.respond(problem.response)
      case .success(let ops): applyOps(room, ops, responder)
      }
    default:
      preconditionFailure("not an API write: \(route)")
    }
  }

  /// `POST …/ops`: runs now, or once the room has loaded.
  private func applyOps(_ name: String, _ ops: APIWaiters.Ops, _ responder: HTTPResponder) {
    if waiters.forLoad[name] != nil {
      waiters.forLoad[name]!.append((ops, responder))
      return
    }
    let (state, actions) = registry.openForAPI(name)
    switch state {
    case .ready:
      queueOps(name, ops, responder)
    case .loading:
      waiters.forLoad[name, default: []].append((ops, responder))
      perform(actions)
    case .refused(let error):
      responder.respond(APIRoutes.Problem(503, "server full", error.message).response)
    }
  }

  /// A room's load was answered (after the registry took it): the requests that waited for it
  /// run, in order, or get 503.
  public func apiRoomLoaded(_ name: String, _ result: Result<PreparedRoom, RoomStoreError>) {
    replicaLoaded(name, result)
    if !registry.isReloading(room: name) {
      for answer in waits.afterReload.removeValue(forKey: name) ?? [] { answer() }
    }
    guard let waiting = waiters.forLoad.removeValue(forKey: name) else { return }
    for (ops, responder) in waiting {
      if case .failure(let error) = result {
        responder.respond(
          APIRoutes.Problem(503, "storage unavailable", "the board could not be loaded: \(error)").response)
      } else if registry.epoch(room: name) != nil {
        queueOps(name, ops, responder)
      } else {
        responder.respond(APIRoutes.Problem(503, "storage unavailable", "the board is not available").response)
      }
    }
  }

  /// `PUT /api/v1/boards/{room}`.
  private func putBoard(_ name: String, _ content: BoardContent, replace: Bool, _ responder: HTTPResponder) {
    guard let boardWrites else { return responder.respond(Self.noBoardWrites.response) }
    let built: CreatedBoard
    switch registry.buildBoard(name, content: content, now: MonotonicClock.now()) {
    case .failure(let refusal): return responder.respond(APIBodies.invalid(refusal).response)
    case .success(let board): built = board
    }
    registry.boardWriteBegan(room: name)
    boardWrites.putBoard(
      room: name, epoch: built.epoch, replace: replace, entries: built.entries, snapshot: built.snapshot,
      summary: built.summary
    ) { [weak self] result in
      self?.host?.post { [weak self] in
        guard let self else { return }
        let now = MonotonicClock.now()
        switch result {
        case .success(.exists):
          perform(registry.boardWriteEnded(room: name, changed: false, epoch: nil, now: now))
          responder.respond(
            APIRoutes.Problem(409, "conflict", "the board \(name) exists; PUT with ?replace=true to replace it")
              .response)
        case .success(let outcome):
          var board = built
          board.replaced = outcome == .replaced
          registry.builtBoardStored(board)
          perform(registry.boardWriteEnded(room: name, changed: true, epoch: board.epoch, now: now))
          boardCreated?(name, board)
          let answer = APIRoutes.json(
            board.replaced ? 200 : 201, Self.boardJSON(name, seq: board.seq, epoch: board.epoch, board: board.board))
          answerOnceReloaded(name) { responder.respond(answer) }
        case .failure(let error):
          Log.log(.error, "board not stored", [("room", name), ("error", "\(error)")])
          perform(registry.boardWriteEnded(room: name, changed: false, epoch: nil, now: now))
          responder.respond(
            APIRoutes.Problem(503, "storage unavailable", "the board was not stored: \(error)").response)
        }
        requestTick(due: registry.nextTick(room: name, now: now), now: now)
      }
    }
  }

  /// `DELETE /api/v1/boards/{room}`.
  private func deleteBoard(_ name: String, _ responder: HTTPResponder) {
    guard let boardWrites else { return responder.respond(Self.noBoardWrites.response) }
    registry.boardWriteBegan(room: name)
    boardWrites.deleteBoard(room: name) { [weak self] result in
      self?.host?.post { [weak self] in
        guard let self else { return }
        let now = MonotonicClock.now()
        switch result {
        case .success(let existed):
          perform(registry.boardWriteEnded(room: name, changed: existed, epoch: nil, now: now))
          guard existed else {
            return responder.respond(APIRoutes.Problem(404, "not found", "no board named \(name)").response)
          }
          boardDeleted?(name)
          responder.respond(HTTPResponse(status: 204, contentType: "application/json", headers: [], body: []))
        case .failure(let error):
          Log.log(.error, "board not deleted", [("room", name), ("error", "\(error)")])
          perform(registry.boardWriteEnded(room: name, changed: false, epoch: nil, now: now))
          responder.respond(
            APIRoutes.Problem(503, "storage unavailable", "the board was not deleted: \(error)").response)
        }
      }
    }
  }

  /// Runs `answer` once the room here has taken its new board (at once unless it is being
  /// reloaded): the members' second `welcome` goes before the answer, so an op sent after the
  /// answer is made on the new board.
  private func answerOnceReloaded(_ name: String, _ answer: @escaping () -> Void) {
    guard registry.isReloading(room: name) else { return answer() }
    waits.afterReload[name, default: []].append(answer)
  }

  /// The answer of a server whose storage cannot write whole boards.
  private static let noBoardWrites = APIRoutes.Problem(
    503, "storage unavailable", "this server's storage cannot write whole boards")
}
