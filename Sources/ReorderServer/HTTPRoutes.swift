import ReorderAPI
import ReorderCluster
import ReorderTransport

/// The server's HTTP routes: which requests are its own, and the answer to each. Pure: the values
/// a response needs come in as `HealthFigures`.
enum HTTPRoutes {
  /// A route the server answers.
  enum Route: Equatable {
    /// `GET /healthz` (and HEAD).
    case health
    /// `GET /metrics` (and HEAD): Prometheus text format (`MetricsEndpoint`).
    case metrics
    /// Anything under `/api/v1` (`APIRoutes`).
    case api
    /// A route of the server's with a method it does not take: 405 with `allow`.
    case methodNotAllowed(allow: String)
  }

  /// Largest body any route takes (no route reads a body).
  static let maxBodyBytes = 0

  /// The server's route for `head`, or nil for the static files. `/metrics` is a route unless
  /// `metrics` is false (`--metrics-listen` serves it elsewhere): then it is not found.
  static func match(_ head: HTTPRequestHead, metrics: Bool = true) -> Route? {
    if head.path == "/api/v1" || head.path.hasPrefix("/api/v1/") { return .api }
    let route: Route
    switch head.path {
    case "/healthz": route = .health
    case "/metrics" where metrics: route = .metrics
    default: return nil
    }
    return head.method == "GET" || head.method == "HEAD" ? route : .methodNotAllowed(allow: "GET, HEAD")
  }

  /// `200` with the exposition, in the content type Prometheus asks for, never cached.
  static func metrics(_ text: String) -> HTTPResponse {
    HTTPResponse(
      status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", headers: [("cache-control", "no-store")],
      body: Array(text.utf8))
  }

  /// What `/healthz` reports.
  struct HealthFigures: Equatable {
    var uptimeSeconds: Int
    var connections: Int
    var rooms: Int
    /// Cluster mode: whether Redis is reached (ops on what is not are rejected `unavailable`).
    var redis: ClusterHealth.State = .ok
    /// The node is being drained (it closes its websockets and stops).
    var draining = false
  }

  /// `200 {"status":"ok","connections":…,"rooms":…,"uptime_s":…}`, never cached. In cluster mode
  /// while Redis is unreachable `503 {"status":"degraded",…,"redis":"unreachable",
  /// "redis_unreachable":["HOST:PORT",…]}`, so that a load balancer sends new clients to a node
  /// that can commit their ops; while only some masters of a Redis Cluster are unreachable
  /// `200 {"status":"degraded",…,"redis":"partial","redis_unreachable":[…]}` (every node is
  /// as cut off from them, and the rooms on the other masters are served).
  /// While draining `503 {"status":"draining",…}`, so that load balancers stop sending first.
  static func health(_ figures: HealthFigures) -> HTTPResponse {
    let redis: (word: String, unreachable: [String])? =
      switch figures.redis {
      case .ok: nil
      case .partial(let nodes): ("partial", nodes)
      case .down(_, let nodes): ("unreachable", nodes)
      }
    let down = redis?.word == "unreachable"
    let status = figures.draining ? "draining" : redis != nil ? "degraded" : "ok"
    var json =
      "{\"status\":\"\(status)\",\"connections\":\(figures.connections),"
      + "\"rooms\":\(figures.rooms),\"uptime_s\":\(figures.uptimeSeconds)"
    if let redis {
      json +=
        ",\"redis\":\"\(redis.word)\",\"redis_unreachable\":["
        + redis.unreachable.map { "\"\($0)\"" }.joined(separator: ",") + "]"
    }
    json += "}\n"
    return HTTPResponse(
      status: down || figures.draining ? 503 : 200, contentType: "application/json",
      headers: [("cache-control", "no-store")],
      body: Array(json.utf8))
  }
}
