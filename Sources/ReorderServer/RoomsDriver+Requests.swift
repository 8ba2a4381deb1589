import Dispatch
import ReorderAPI
import ReorderBasics
import ReorderRooms
import ReorderStore
import ReorderTransport

extension RoomsDriver {
  /// Websocket upgrades: see `AdmissionControl`.
  func admit(_ request: UpgradeRequest) -> UpgradeDecision {
    admission.decide(request, now: MonotonicClock.now(), port: transport?.listenPort ?? 0)
  }

  /// An admitted websocket: joins its room, or is closed with the reason its path names no room.
  func connectionOpened(_ connection: ConnectionID, context: (any Sendable)?) {
    guard let admitted = context as? Admission else {
      transport?.close(connection, code: CloseCode.internalError, reason: "connection without admission")
      return
    }
    admission.opened(admitted)
    admissions[connection] = admitted
    switch admitted.target {
    case .room(let room):
      let now = MonotonicClock.now()
      perform(registry.opened(ConnectionHandle(connection.rawValue), room: room, now: now))
      requestTick(due: registry.takeNewDeadline(), now: now)  // its hello timeout
    case .invalid(let reason):
      transport?.close(connection, code: CloseCode.policyViolation, reason: reason)
    }
  }

  /// The server's HTTP routes (`HTTPRoutes`); everything else goes to the static files.
  func route(_ head: HTTPRequestHead) -> HTTPRouting {
    switch HTTPRoutes.match(head, metrics: metrics != nil) {
    case nil: .pass
    case .api: .handle(maxBodyBytes: APIRoutes.maxBodyBytes, tooLarge: APIRoutes.tooLarge.response)
    default: .handle(maxBodyBytes: HTTPRoutes.maxBodyBytes)
    }
  }

  /// Answers a request `route` took.
  func handle(_ request: HTTPRequest, responder: HTTPResponder) {
    switch HTTPRoutes.match(request.head, metrics: metrics != nil) {
    case .health:
      let figures = HTTPRoutes.HealthFigures(
        uptimeSeconds: Int(MonotonicClock.now() - startedAt), connections: transport?.connectionCount ?? 0,
        rooms: registry.roomCount, redis: redisHealth?.current ?? .ok,
        draining: transport?.isDraining ?? false)
      responder.respond(HTTPRoutes.health(figures))
    case .api:
      api.handle(request, responder: responder)
    case .metrics:
      metrics?.answer(request, responder: responder, onServiceThread: true)
    case .methodNotAllowed(let allow):
      responder.respond(.text(405, "method not allowed\n", headers: [("allow", allow)]))
    case nil:
      responder.respond(.text(404, "not found\n"))
    }
  }
}
