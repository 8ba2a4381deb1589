import ReorderAPI
import ReorderBasics
import ReorderRooms
import ReorderTransport

/// The API's writes (`PUT`/`DELETE /api/v1/boards/{room}`, `POST …/ops`): each runs on the room in
/// memory (loaded first, off the service thread, if needed) and answers once what it changed is
/// durable. Service thread; nothing here waits.
///
/// The points where a board is created, replaced and deleted are `boardCreated(_:_:)` and
/// `boardDeleted(_:)`, one each, on one node and in cluster mode (`RoomsDriver+ClusterAPI.swift`,
/// on the node that made the change): what else should happen then (webhooks) goes there.
extension RoomsDriver {
  /// Decodes the write's body, then runs it now or once its room has loaded.
  func apiWrite(_ route: APIRoutes.Route, _ request: HTTPRequest, _ responder: HTTPResponder) {
    let write: APIWaiters.Write
    let name: String
    switch route {
    case .createBoard(let room):
      guard case .success(let body) = APIBodies.object(request.body) else {
        return responder.respond(APIBodies.notAnObject.response)
      }
      do {
        write = .create(try BoardContent(body), replace: request.head.queryValue("replace") == "true")
      } catch {
        return responder.respond(APIBodies.invalid(error).response)
      }
      name = room
    case .deleteBoard(let room):
      (write, name) = (.delete, room)
    case .applyOps(let room):
      switch APIBodies.ops(request.body) {
      case .failure(let problem): return responder.respond(problem.response)
      case .success(let ops): (write, name) = (.ops(ops), room)
      }
    default:
      preconditionFailure("not an API write: \(route)")
    }
    if cluster != nil, case .create(let content, let replace) = write {
      return clusterCreate(name, content, replace: replace, responder)
    }
    if cluster != nil, case .delete = write { return clusterDelete(name, responder) }
    guard directory != nil || cluster != nil else {
      return responder.respond(
        APIRoutes.Problem(503, "storage unavailable", "this server's storage cannot write whole boards").response)
    }
    if apiWaiters.forLoad[name] != nil {
      apiWaiters.forLoad[name]!.append((write, responder))
      return
    }
    let (state, actions) = registry.openForAPI(name)
    switch state {
    case .ready:
      run(write, room: name, responder)
    case .loading:
      apiWaiters.forLoad[name, default: []].append((write, responder))
      perform(actions)
    case .refused(let error):
      responder.respond(APIRoutes.Problem(503, "server full", error.message).response)
    }
  }

  /// The storage port's board writes, when the storage has them.
  var directory: (any BoardDirectory)? { storage as? any BoardDirectory }

  /// A room's load was answered (after the registry took it): the writes that waited for it run,
  /// in order, or get 503.
  func apiRoomLoaded(_ name: String, _ result: Result<PreparedRoom, RoomStoreError>) {
    clusterRoomLoaded(name, result)
    guard let waiting = apiWaiters.forLoad.removeValue(forKey: name) else { return }
    for (write, responder) in waiting {
      if case .failure(let error) = result {
        responder.respond(
          APIRoutes.Problem(503, "storage unavailable", "the board could not be loaded: \(error)").response)
      } else if registry.epoch(room: name) != nil {
        run(write, room: name, responder)
      } else {
        responder.respond(APIRoutes.Problem(503, "storage unavailable", "the board is not available").response)
      }
    }
  }

  private func run(_ write: APIWaiters.Write, room name: String, _ responder: HTTPResponder) {
    let now = MonotonicClock.now()
    switch write {
    case .create(let content, let replace):
      create(name, content, replace: replace, now: now, responder)
    case .delete:
      delete(name, now: now, responder)
    case .ops(let ops):
      clusterApplyOps(name, ops, responder)
    }
    requestTick(due: registry.nextTick(room: name, now: now), now: now)
  }

  private func create(_ name: String, _ content: BoardContent, replace: Bool, now: Double, _ responder: HTTPResponder) {
    guard let directory else { return }
    switch registry.createBoard(name, content: content, replace: replace, now: now) {
    case .exists:
      responder.respond(
        APIRoutes.Problem(409, "conflict", "the board \(name) exists; PUT with ?replace=true to replace it").response)
    case .invalid(let refusal):
      responder.respond(APIBodies.invalid(refusal).response)
    case .created(let board):
      perform(registry.follow(room: name))
      directory.replaceBoard(room: name, entries: board.entries, snapshot: board.snapshot, summary: board.summary) {
        [weak self] result in
        self?.transport?.post { [weak self] in
          guard let self else { return }
          let current = registry.epoch(room: name) == board.epoch
          switch result {
          case .success:
            if current { perform(registry.durable(room: name, upTo: board.seq)) }
            boardCreated(name, board)
            responder.respond(
              APIRoutes.json(
                board.replaced ? 200 : 201, Self.boardJSON(name, seq: board.seq, epoch: board.epoch, board: board.board)
              ))
          case .failure(let error):
            Log.log(.error, "board not stored", [("room", name), ("error", "\(error)")])
            if current { perform(registry.fail(room: name, reason: "storage failure: \(error.kind)")) }
            responder.respond(
              APIRoutes.Problem(503, "storage unavailable", "the board was not stored: \(error)").response)
          }
        }
      }
    }
  }

  private func delete(_ name: String, now: Double, _ responder: HTTPResponder) {
    guard let directory else { return }
    let (existed, actions) = registry.deleteBoard(name, now: now)
    guard existed else {
      return responder.respond(APIRoutes.Problem(404, "not found", "no board named \(name)").response)
    }
    perform(actions)
    let fresh = registry.epoch(room: name)
    directory.deleteBoard(room: name) { [weak self] result in
      self?.transport?.post { [weak self] in
        guard let self else { return }
        switch result {
        case .success:
          boardDeleted(name)
          responder.respond(HTTPResponse(status: 204, contentType: "application/json", headers: [], body: []))
        case .failure(let error):
          Log.log(.error, "board not deleted", [("room", name), ("error", "\(error)")])
          // The empty board in memory would hide what is still stored: drop it (the next join
          // loads what storage has).
          if registry.epoch(room: name) == fresh {
            perform(registry.fail(room: name, reason: "storage failure: \(error.kind)"))
          }
          responder.respond(
            APIRoutes.Problem(503, "storage unavailable", "the board was not deleted: \(error)").response)
        }
      }
    }
  }

  /// Answers `{"results":[…]}`, reading from the log the ops of re-sent ids no longer in memory.
  func completeOps(_ name: String, _ results: [APIOpResult], _ responder: HTTPResponder) {
    guard let index = results.firstIndex(where: { if case .applied(_, _, nil) = $0 { true } else { false } }),
      case .applied(let id, let seq, _) = results[index]
    else {
      return responder.respond(APIRoutes.json(200, .object([("results", .array(results.map(\.json)))])))
    }
    storage.entries(room: name, after: seq - 1, limit: 1) { [weak self] read in
      self?.transport?.post { [weak self] in
        var results = results
        // The log may no longer hold it (trimmed beyond --history-ops): then the op is null.
        let entry = (try? read.get())?.first.flatMap { $0.seq == seq ? $0 : nil }
        let record = entry.flatMap { try? OpRecord(payload: $0.payload) }
        results[index] = .applied(id: id, seq: seq, op: record?.resolved ?? .null)
        self?.completeOps(name, results, responder)
      }
    }
  }

  /// A board was created or replaced (durable). The one place to tell others (webhooks): a
  /// `board.created`, then the `board.changed` of its seeded ops 1…seq, so that the new epoch's
  /// events start at `from_seq` 1 as docs/WEBHOOKS.md has it (in cluster mode the lease holder
  /// reports from the PUT's summary on, which is at that seq).
  func boardCreated(_ name: String, _ board: CreatedBoard) {
    Log.log(.info, board.replaced ? "board replaced by the API" : "board created by the API", [("room", name)])
    webhooks?.boardCreated(room: name, epoch: board.epoch)
    if board.seq > 0 {
      webhooks?.boardChanged(room: name, epoch: board.epoch, fromSeq: 1, toSeq: board.seq, actors: [.api])
    }
  }

  /// A board was deleted (durable). The one place to tell others (webhooks).
  func boardDeleted(_ name: String) {
    webhooks?.boardDeleted(room: name)
  }
}
