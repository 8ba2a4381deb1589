/// What the server built on this transport decides and hears. Called ONLY on the service thread.
///
/// The transport knows no routes: every websocket upgrade is put to `admit(_:)`, every HTTP request
/// to `route(_:)` first (static files are served only for requests the handler passes on).
public protocol WebSocketServerHandler: AnyObject {
  /// A websocket upgrade arrived: accept it (with a context of the handler's own, handed back in
  /// `connectionOpened`) or refuse it with an HTTP status, before it becomes a websocket.
  func admit(_ request: UpgradeRequest) -> UpgradeDecision
  /// An accepted upgrade is now a websocket; `context` is what `admit` accepted it with.
  func connectionOpened(_ connection: ConnectionID, context: (any Sendable)?)
  /// One whole message (fragments reassembled, size limit enforced).
  func connectionReceived(_ connection: ConnectionID, message: [UInt8], isBinary: Bool)
  /// The connection is gone (any reason). No more sends to it.
  func connectionClosed(_ connection: ConnectionID)
  /// A tick the handler asked for with `WebSocketServer.requestTick(afterSeconds:)`.
  func transportTick()
  /// Whether an HTTP request is the handler's (its body is then read, up to a limit) or is passed
  /// on to the static files.
  func route(_ head: HTTPRequestHead) -> HTTPRouting
  /// A request `route` took, with its body. Answer through `responder`, now or later from any
  /// thread; exactly one response counts.
  func handle(_ request: HTTPRequest, responder: HTTPResponder)
  /// A GET or HEAD `route` passed on to the static files: the path under the web root to serve
  /// for it and headers to add to the file's (e.g. CORS). Default: its own path, no headers.
  func staticFile(for head: HTTPRequestHead) -> StaticFileRoute
}

/// Which file a static request gets, and what is added to its response headers.
public struct StaticFileRoute: Sendable, Equatable {
  /// The path under the web root (as a request path: `/js/app.js`).
  public var path: String
  /// Added to the file's headers (to its 304 as well).
  public var headers: [HTTPHeader]

  public init(path: String, headers: [HTTPHeader] = []) {
    self.path = path
    self.headers = headers
  }
}

/// One response header.
public struct HTTPHeader: Sendable, Equatable {
  public var name: String
  public var value: String

  public init(_ name: String, _ value: String) {
    self.name = name
    self.value = value
  }
}

extension WebSocketServerHandler {
  /// Every path is its own file; nothing added.
  public func staticFile(for head: HTTPRequestHead) -> StaticFileRoute { StaticFileRoute(path: head.path) }
}
