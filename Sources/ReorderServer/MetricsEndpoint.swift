import ReorderAPI
import ReorderBasics
import ReorderMetrics
import ReorderTransport

/// Answers `GET /metrics`, on the main port (`RoomsDriver`) or on `--metrics-listen`'s
/// (`MetricsListener`): checks the API key with `--metrics-auth`, takes the statistics on the
/// service thread, and renders them — with the `/proc` and data directory figures, which read
/// files — on a queue of its own, so a scrape costs the service thread one snapshot only.
final class MetricsEndpoint: Sendable {
  /// Takes a `ServerStatistics` snapshot on the service thread (posting to it) and hands it over.
  let snapshot: @Sendable (@escaping @Sendable (ServerStatistics) -> Void) -> Void
  /// The snapshot now; on the service thread only (the main port's requests are handled there,
  /// and a post would cost one more pass of its loop over every socket).
  let current: @Sendable () -> ServerStatistics
  /// Bytes of the database files.
  let storeBytes: @Sendable () -> Int?
  /// With `--metrics-auth`, the keys a scrape must present (swapped by a reload).
  let keys: Locked<APIKeys?>
  private let queue = BackgroundQueue.make(name: "reorder-metrics")

  init(
    keys: APIKeys?, storeBytes: @escaping @Sendable () -> Int?, current: @escaping @Sendable () -> ServerStatistics,
    snapshot: @escaping @Sendable (@escaping @Sendable (ServerStatistics) -> Void) -> Void
  ) {
    self.keys = Locked(keys)
    self.storeBytes = storeBytes
    self.current = current
    self.snapshot = snapshot
  }

  /// Answers `request` (a GET or HEAD of `/metrics`) through `responder`, later. On the service
  /// thread pass `onServiceThread`: the snapshot is taken at once; elsewhere it is posted for.
  func answer(_ request: HTTPRequest, responder: HTTPResponder, onServiceThread: Bool = false) {
    let authorization = request.head.headers["authorization"]
    if keys.withLock({ $0.map { !$0.accepts(authorization: authorization) } ?? false }) {
      responder.respond(
        .text(401, "unauthorized: send Authorization: Bearer <API key>\n", headers: [("www-authenticate", "Bearer")]))
      return
    }
    let render: @Sendable (ServerStatistics) -> Void = { [queue, storeBytes] statistics in
      queue.async {
        responder.respond(
          HTTPRoutes.metrics(MetricsText.render(statistics, process: .read(), storeBytes: storeBytes())))
      }
    }
    if onServiceThread { render(current()) } else { snapshot(render) }
  }
}

/// The handler of `--metrics-listen`'s own server: `/metrics` (GET, HEAD) and nothing else, no
/// websockets. Runs on that server's service thread, never on the rooms' one.
final class MetricsListener: WebSocketServerHandler {
  let endpoint: MetricsEndpoint

  init(endpoint: MetricsEndpoint) { self.endpoint = endpoint }

  func admit(_ request: UpgradeRequest) -> UpgradeDecision { .refuse(status: 404, reason: "not found") }
  func connectionOpened(_ connection: ConnectionID, context: (any Sendable)?) {}
  func connectionReceived(_ connection: ConnectionID, message: [UInt8], isBinary: Bool) {}
  func connectionClosed(_ connection: ConnectionID) {}
  func transportTick() {}

  func route(_ head: HTTPRequestHead) -> HTTPRouting {
    head.path == "/metrics" ? .handle(maxBodyBytes: 0) : .pass
  }

  func handle(_ request: HTTPRequest, responder: HTTPResponder) {
    guard request.head.method == "GET" || request.head.method == "HEAD" else {
      responder.respond(.text(405, "method not allowed\n", headers: [("allow", "GET, HEAD")]))
      return
    }
    endpoint.answer(request, responder: responder)
  }
}
