import ReorderTransport

/// The server's HTTP routes: which requests are its own, and the answer to each. Pure: the values
/// a response needs come in as `HealthFigures`.
enum HTTPRoutes {
  /// A route the server answers.
  enum Route: Equatable {
    /// `GET /healthz` (and HEAD).
    case health
    /// A route of the server's with a method it does not take: 405 with `allow`.
    case methodNotAllowed(allow: String)
  }

  /// Largest body any route takes (no route reads a body).
  static let maxBodyBytes = 0

  /// The server's route for `head`, or nil for the static files.
  static func match(_ head: HTTPRequestHead) -> Route? {
    guard head.path == "/healthz" else { return nil }
    return head.method == "GET" || head.method == "HEAD" ? .health : .methodNotAllowed(allow: "GET, HEAD")
  }

  /// What `/healthz` reports.
  struct HealthFigures: Equatable {
    var uptimeSeconds: Int
    var connections: Int
    var rooms: Int
  }

  /// `200 {"status":"ok","connections":…,"rooms":…,"uptime_s":…}`, never cached.
  static func health(_ figures: HealthFigures) -> HTTPResponse {
    let json =
      "{\"status\":\"ok\",\"connections\":\(figures.connections),\"rooms\":\(figures.rooms),"
      + "\"uptime_s\":\(figures.uptimeSeconds)}\n"
    return HTTPResponse(
      status: 200, contentType: "application/json", headers: [("cache-control", "no-store")], body: Array(json.utf8))
  }
}
