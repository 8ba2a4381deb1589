import ReorderRooms
import ReorderTransport

/// The HTTP API under `/api/v1` (docs/API.md): which route a request is, and the RFC 9457 problem
/// responses. Pure.
public enum APIRoutes {
  /// Largest request body (413 beyond).
  public static let maxBodyBytes = 1 << 20

  /// The answer to a body over `maxBodyBytes` (the transport sends it before reading the rest).
  public static let tooLarge = Problem(413, "content too large", "the body is over 1 MiB (1048576 bytes)")

  /// A route of the API.
  public enum Route: Equatable {
    /// `GET /api/v1/boards`.
    case boards
    /// `GET /api/v1/boards/{room}`.
    case board(String)
    /// `POST /api/v1/boards/{room}/disconnect`.
    case disconnect(String)
    /// `GET /api/v1/boards/{room}/ops?since=S&limit=N`.
    case ops(String)
    /// `GET /api/v1/boards/{room}/presence`.
    case presence(String)
    /// `GET /api/v1/boards/{room}/history?before=B&limit=N`.
    case history(String)
    /// `PUT /api/v1/boards/{room}` (`?replace=true`).
    case createBoard(String)
    /// `DELETE /api/v1/boards/{room}`.
    case deleteBoard(String)
    /// `POST /api/v1/boards/{room}/ops`.
    case applyOps(String)
    /// `POST /api/v1/admin/drain`: drain this node and stop it (`ReorderService.drainAndShutdown`).
    case drain
  }

  /// Most ops one `POST …/ops` takes (413 beyond).
  public static let maxOpsPerRequest = 1_000

  /// The route of `head`, or the problem it is (404 unknown path or room name, 405 method).
  public static func match(_ head: HTTPRequestHead) -> Result<Route, Problem> {
    let parts = head.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst(3).map(String.init)
    func room(_ text: String) -> Result<String, Problem> {
      guard case .success(let name) = RoomPath.validate(Array(text.utf8)) else {
        return .failure(Problem(404, "not found", "'\(text)' is not a room name (1-64 of A-Z a-z 0-9 - _ .)"))
      }
      return .success(name)
    }
    /// The route of the request's method among `allowed` (HEAD goes as GET), else 405.
    func method(_ allowed: [(method: String, route: Route)]) -> Result<Route, Problem> {
      let wanted = head.method == "HEAD" ? "GET" : head.method
      if let match = allowed.first(where: { $0.method == wanted }) { return .success(match.route) }
      let allow = allowed.map(\.method).joined(separator: ", ")
      return .failure(Problem(405, "method not allowed", "\(head.path) takes \(allow)", allow: allow))
    }
    switch parts.count {
    case 1 where parts[0] == "boards":
      return method([("GET", .boards)])
    case 2 where parts[0] == "boards":
      return room(parts[1]).flatMap {
        method([("GET", .board($0)), ("PUT", .createBoard($0)), ("DELETE", .deleteBoard($0))])
      }
    case 3 where parts[0] == "boards" && parts[2] == "disconnect":
      return room(parts[1]).flatMap { method([("POST", .disconnect($0))]) }
    case 3 where parts[0] == "boards" && parts[2] == "ops":
      return room(parts[1]).flatMap { method([("GET", .ops($0)), ("POST", .applyOps($0))]) }
    case 3 where parts[0] == "boards" && parts[2] == "presence":
      return room(parts[1]).flatMap { method([("GET", .presence($0))]) }
    case 3 where parts[0] == "boards" && parts[2] == "history":
      return room(parts[1]).flatMap { method([("GET", .history($0))]) }
    case 2 where parts[0] == "admin" && parts[1] == "drain":
      return method([("POST", .drain)])
    default:
      return .failure(Problem(404, "not found", "no API route \(head.path)"))
    }
  }

  /// An RFC 9457 problem: `application/problem+json` with `type`, `title`, `status`, `detail`.
  public struct Problem: Error, Equatable {
    /// The HTTP status, also the body's `status`.
    public let status: Int
    /// A short summary (`title`).
    public let title: String
    /// What went wrong, for a person (`detail`).
    public let detail: String
    /// The methods an `Allow` header names (405).
    public var allow: String?
    /// Seconds for a `Retry-After` header (429).
    public var retryAfter: Int?
    /// Extension members after the four (RFC 9457 section 3.2), e.g. `code` and `at` of a 422.
    public var extensions: [(key: String, value: JSONValue)] = []

    /// A problem of `status`.
    public init(
      _ status: Int, _ title: String, _ detail: String, allow: String? = nil, retryAfter: Int? = nil,
      extensions: [(key: String, value: JSONValue)] = []
    ) {
      self.status = status
      self.title = title
      self.detail = detail
      self.allow = allow
      self.retryAfter = retryAfter
      self.extensions = extensions
    }

    /// Equal in every member (extensions compared in order).
    public static func == (a: Problem, b: Problem) -> Bool {
      a.status == b.status && a.title == b.title && a.detail == b.detail && a.allow == b.allow
        && a.retryAfter == b.retryAfter
        && a.extensions.map(\.key) == b.extensions.map(\.key)
        && a.extensions.map(\.value) == b.extensions.map(\.value)
    }

    /// The answer: the problem as `application/problem+json`, with its headers.
    public var response: HTTPResponse {
      let body = JSONValue.object(
        [
          ("type", .string("about:blank")), ("title", .string(title)), ("status", .number(Double(status))),
          ("detail", .string(detail)),
        ] + extensions
      ).encoded()
      var headers: [(name: String, value: String)] = [("cache-control", "no-store")]
      if let allow { headers.append(("allow", allow)) }
      if let retryAfter { headers.append(("retry-after", String(retryAfter))) }
      if status == 401 { headers.append(("www-authenticate", "Bearer")) }
      return HTTPResponse(status: status, contentType: "application/problem+json", headers: headers, body: body)
    }
  }

  /// A JSON response.
  public static func json(_ status: Int, _ value: JSONValue) -> HTTPResponse {
    HTTPResponse(
      status: status, contentType: "application/json", headers: [("cache-control", "no-store")],
      body: value.encoded())
  }
}

extension APIRoutes.Route {
  /// Whether the route changes a board (`APIHandlers+Writes.swift`).
  public var isWrite: Bool {
    switch self {
    case .createBoard, .deleteBoard, .applyOps: true
    default: false
    }
  }
}

extension APIRoutes.Route {
  /// The route's label in `reorder_http_requests_total` and `reorder_http_request_duration_seconds`:
  /// its method and path template.
  public var label: String {
    switch self {
    case .boards: "GET /api/v1/boards"
    case .board: "GET /api/v1/boards/{room}"
    case .createBoard: "PUT /api/v1/boards/{room}"
    case .deleteBoard: "DELETE /api/v1/boards/{room}"
    case .disconnect: "POST /api/v1/boards/{room}/disconnect"
    case .ops: "GET /api/v1/boards/{room}/ops"
    case .applyOps: "POST /api/v1/boards/{room}/ops"
    case .presence: "GET /api/v1/boards/{room}/presence"
    case .history: "GET /api/v1/boards/{room}/history"
    case .drain: "POST /api/v1/admin/drain"
    }
  }

  /// The label of a request that matched no route (404, 405), or of the API being off.
  public static let otherLabel = "other"

  /// Every route's label with the status of its success, listed at 0 before the first request.
  public static let knownLabels: [(route: String, status: Int)] = [
    (Self.boards.label, 200), (Self.board("").label, 200), (Self.createBoard("").label, 201),
    (Self.deleteBoard("").label, 204), (Self.disconnect("").label, 200), (Self.ops("").label, 200),
    (Self.applyOps("").label, 200), (Self.presence("").label, 200), (Self.history("").label, 200),
    (Self.drain.label, 202),
  ]
}
