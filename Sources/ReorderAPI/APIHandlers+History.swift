import Foundation
import ReorderRooms
import ReorderTransport

/// `GET /api/v1/boards/{room}/history?before=B&limit=N` (docs/API.md): the ops before seq B (the
/// newest without it), newest first, each with who made it and when. On one node read from the
/// stored log, within `--history-ops`; in cluster mode from this node's replica, within the same
/// window as `GET …/ops` there. 410 when B - 1 is older than the kept history.
extension APIHandlers {
  func history(_ name: String, _ head: HTTPRequestHead, _ responder: HTTPResponder) {
    var before: UInt64?
    if let text = head.queryValue("before") {
      guard let value = UInt64(text), value >= 1, value <= 1 << 53 else {
        return responder.respond(
          APIRoutes.Problem(400, "bad request", "before takes a seq from 1 to 2^53 (a whole number)").response)
      }
      before = value
    }
    guard let limit = Int(head.queryValue("limit") ?? "100"), (1...1_000).contains(limit) else {
      return responder.respond(APIRoutes.Problem(400, "bad request", "limit takes 1 to 1000").response)
    }
    if readsReplicas { return replicaHistory(name, before: before, limit: limit, responder) }
    let storage = self.storage
    let asked = before
    storage.roomNames { names in
      guard case .success(let names) = names, names.contains(name) else {
        return responder.respond(APIRoutes.Problem(404, "not found", "no board named \(name)").response)
      }
      HistoryPage.read(room: name, before: asked, limit: limit, on: storage) {
        Self.respondHistory(name, $0, responder)
      }
    }
  }

  /// From this node's replica (a cluster's), loaded for the request when it is not.
  private func replicaHistory(_ name: String, before: UInt64?, limit: Int, _ responder: HTTPResponder) {
    readFromReplica(name, responder) { [unowned self] in
      registry.loggedHistory(room: name, before: before, limit: limit).map {
        respondReplicaHistory(name, $0, before: before, limit: limit, responder)
      }
    }
  }

  /// The replica's page, or, for one older than its window, the page rebuilt from the shared log
  /// (`RoomLoad.historyPage`, off the service thread).
  private func respondReplicaHistory(
    _ name: String, _ found: LoggedHistory, before: UInt64?, limit: Int, _ responder: HTTPResponder
  ) {
    guard case .page(.gone) = found, let before else { return Self.respondHistory(name, found, responder) }
    registry.historyLoad(room: name).historyPage(before: before, limit: limit, on: storage) {
      Self.respondHistory(name, $0, responder)
    }
  }

  /// A page read from storage, or 503 when the read failed.
  private static func respondHistory(
    _ name: String, _ read: Result<HistoryPage, RoomStoreError>, _ responder: HTTPResponder
  ) {
    switch read {
    case .failure(let error): responder.respond(APIRoutes.Problem(503, "storage unavailable", "\(error)").response)
    case .success(let page): respondHistory(name, page, responder)
    }
  }

  private static func respondHistory(_ name: String, _ found: LoggedHistory, _ responder: HTTPResponder) {
    switch found {
    case .noBoard: responder.respond(APIRoutes.Problem(404, "not found", "no board named \(name)").response)
    case .page(let page): respondHistory(name, page, responder)
    }
  }

  /// Milliseconds since 1970 as RFC 3339 UTC (`2026-12-01T18:04:05.123Z`).
  @Sendable public static func rfc3339(_ milliseconds: Int64) -> String {
    BoardCursor.rfc3339(Date(timeIntervalSince1970: Double(milliseconds) / 1_000))
  }

  private static func respondHistory(_ name: String, _ page: HistoryPage, _ responder: HTTPResponder) {
    switch page {
    case .gone(let earliest):
      responder.respond(
        APIRoutes.Problem(
          410, "gone", "the history no longer reaches back that far; the earliest op kept is \(earliest)",
          extensions: [("earliest", .number(Double(earliest)))]
        ).response)
    case .entries:
      let json = page.json(room: name, rfc3339: rfc3339)
      responder.respond(APIRoutes.json(200, json ?? .null))
    }
  }
}

extension APIHandlers {
  /// `GET /api/v1/boards/{room}?at=SEQ`: the board right after op SEQ, `{room, seq, epoch, board}`
  /// as the plain GET; 410 when SEQ is older than the kept history, 404
  /// for a seq the board has not reached. Read and rebuilt off the service thread.
  func boardAt(_ name: String, _ text: String, _ responder: HTTPResponder) {
    guard let seq = UInt64(text), seq <= 1 << 53 else {
      return responder.respond(
        APIRoutes.Problem(400, "bad request", "at takes a seq from 0 to 2^53 (a whole number)").response)
    }
    let storage = self.storage
    let load = registry.historyLoad(room: name)
    storage.roomNames { names in
      guard case .success(let names) = names, names.contains(name) else {
        return responder.respond(APIRoutes.Problem(404, "not found", "no board named \(name)").response)
      }
      load.boardAt(seq: seq, on: storage) { result in
        switch result {
        case .failure(let error):
          responder.respond(APIRoutes.Problem(503, "storage unavailable", "\(error)").response)
        case .success(.board(let seq, let epoch, let board)):
          responder.respond(APIRoutes.json(200, Self.boardJSON(name, seq: seq, epoch: epoch, board: board)))
        case .success(.gone):
          responder.respond(
            APIRoutes.Problem(
              410, "gone", "the board at seq \(seq) is older than the kept history"
            ).response)
        case .success(.beyond(let last)):
          responder.respond(
            APIRoutes.Problem(404, "not found", "the board \(name) has no op \(seq) yet; its last is \(last)").response)
        }
      }
    }
  }
}
