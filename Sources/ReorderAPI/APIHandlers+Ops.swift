import ReorderBasics
import ReorderRooms
import ReorderTransport

/// The HTTP API's requests answered by the rooms (the same on one node and in a cluster): the
/// ops of `POST …/ops` once the room applied them, and reads from a room's replica (`GET …/ops`,
/// `GET …/history` in cluster mode), loaded for them if needed. Service thread; nothing here waits.
extension APIHandlers {
  /// `POST /api/v1/boards/{room}/ops` on the loaded room: answered once every op is applied and
  /// durable (`apiAnswered`).
  func queueOps(
    _ name: String, _ ops: [(id: String, intent: Result<Intent, ProtocolError>)], _ responder: HTTPResponder
  ) {
    let request = waits.nextAPIRequest
    waits.nextAPIRequest += 1
    waits.apiRequests[request] = (name, responder)
    let now = MonotonicClock.now()
    perform(registry.applyAPIOps(name, request: request, ops: ops, now: now))
    requestTick(due: registry.nextTick(room: name, now: now), now: now)
  }

  /// A `POST …/ops` request's results (`.apiDone`), or why it has none (`.apiFailed`: 503).
  public func apiAnswered(_ request: UInt64, results: [APIOpResult]?, failure: String?) {
    guard let waiting = waits.apiRequests.removeValue(forKey: request) else { return }
    guard let results else {
      return waiting.responder.respond(
        APIRoutes.Problem(503, "storage unavailable", "the ops were not applied: \(failure ?? "")").response)
    }
    // A repeated op beyond the room's memory is read from the store where its records hold the
    // resolved ops (one node's); the shared log's hold the maker's view: its `op` stays null.
    guard !readsReplicas else {
      return waiting.responder.respond(APIRoutes.json(200, .object([("results", .array(results.map(\.json)))])))
    }
    completeOps(waiting.room, results, waiting.responder)
  }

  /// Answers `{"results":[…]}`. A re-sent id's result whose op is outside the room's memory gets
  /// it from storage, one read each.
  private func completeOps(_ name: String, _ results: [APIOpResult], _ responder: HTTPResponder) {
    guard let index = results.firstIndex(where: { if case .applied(_, _, nil) = $0 { true } else { false } }),
      case .applied(let id, let seq, _) = results[index]
    else {
      return responder.respond(APIRoutes.json(200, .object([("results", .array(results.map(\.json)))])))
    }
    storage.entries(room: name, after: seq - 1, limit: 1) { [weak self] read in
      self?.host?.post { [weak self] in
        var results = results
        // An entry trimmed from the store (beyond --history-ops) answers op null.
        let entry = (try? read.get())?.first.flatMap { $0.seq == seq ? $0 : nil }
        let record = entry.flatMap { try? OpRecord(payload: $0.payload) }
        results[index] = .applied(id: id, seq: seq, op: record?.resolved ?? .null)
        self?.completeOps(name, results, responder)
      }
    }
  }

  /// `room` is not followed here (unloaded or dropped): requests waiting on it get 503.
  public func apiRoomGone(_ room: String) {
    for (request, waiting) in waits.apiRequests where waiting.room == room {
      apiAnswered(request, results: nil, failure: "the board was dropped")
    }
  }

  /// `GET /api/v1/boards/{room}/ops` in cluster mode: from the replica here, loaded for it if needed
  /// (and unloaded once idle, as any room nobody is in).
  func replicaOps(_ name: String, since: UInt64, limit: Int, _ responder: HTTPResponder) {
    readFromReplica(name, responder) { [unowned self] in
      registry.loggedOps(room: name, since: since, limit: limit).map { respondOps(name, $0, since: since, responder) }
    }
  }

  /// Answers a read of the replica of `name` here (`answer`: nil while the room is not loaded),
  /// now when it is loaded, else once it has loaded for the read (and unloads once idle, as any
  /// room nobody is in); 503 when it cannot load.
  func readFromReplica(_ name: String, _ responder: HTTPResponder, answer: @escaping () -> Void?) {
    if answer() != nil { return }
    let (state, actions) = registry.openForAPI(name)
    switch state {
    case .loading:
      waits.replicaReads[name, default: []].append { loaded in
        if case .failure(let error) = loaded {
          responder.respond(
            APIRoutes.Problem(503, "storage unavailable", "the board could not be loaded: \(error)").response)
        } else if answer() == nil {
          responder.respond(APIRoutes.Problem(503, "storage unavailable", "the board is not available").response)
        }
      }
      perform(actions)
    case .ready:
      preconditionFailure("a loaded room answers its reads")
    case .refused(let error):
      responder.respond(APIRoutes.Problem(503, "server full", error.message).response)
    }
  }

  /// A room's load was answered: the reads that waited for it are answered (503 when it failed).
  func replicaLoaded(_ name: String, _ result: Result<PreparedRoom, RoomStoreError>) {
    guard let waiting = waits.replicaReads.removeValue(forKey: name) else { return }
    for read in waiting { read(result) }
  }

  private func respondOps(_ name: String, _ found: LoggedOps, since: UInt64, _ responder: HTTPResponder) {
    switch found {
    case .noBoard:
      responder.respond(APIRoutes.Problem(404, "not found", "no board named \(name)").response)
    case .gone(let earliest):
      responder.respond(
        APIRoutes.Problem(
          410, "gone", "the log no longer reaches back to seq \(since + 1); the earliest kept is \(earliest)"
        ).response)
    case .ops(let frames):
      var out = Array(#"{"room":"#.utf8)
      JSONValue.string(name).write(to: &out)
      out.append(contentsOf: #","ops":["#.utf8)
      for (index, frame) in frames.enumerated() {
        if index > 0 { out.append(UInt8(ascii: ",")) }
        out.append(contentsOf: frame)
      }
      out.append(contentsOf: "]}".utf8)
      responder.respond(
        HTTPResponse(status: 200, contentType: "application/json", headers: [("cache-control", "no-store")], body: out))
    }
  }
}

/// The API's requests waiting on the service thread (`RoomsDriver.waits`).
struct APIRequestWaits {
  /// The HTTP API's `POST …/ops` requests waiting for their room's results, by request id.
  var apiRequests: [UInt64: (room: String, responder: HTTPResponder)] = [:]
  /// The next API request's id.
  var nextAPIRequest: UInt64 = 1
  /// The reads (`GET …/ops`, `GET …/history`) waiting for their room to load here, by room: each
  /// answers once the load did (`APIHandlers.readFromReplica`).
  var replicaReads: [String: [(Result<PreparedRoom, RoomStoreError>) -> Void]] = [:]
  /// Answers of board writes waiting for their room here to reload the new board, by room.
  var afterReload: [String: [() -> Void]] = [:]
}
