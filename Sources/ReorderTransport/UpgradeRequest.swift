/// A websocket upgrade request as the server sees it before accepting it.
///
/// `path` is the request path after lws' one percent-decoding, without the query string; `query`
/// is the query string's `&`-separated parts as lws decoded them (nil without one). Headers are
/// nil when absent.
public struct UpgradeRequest: Sendable, Equatable {
  /// The request path, percent-decoded once.
  public var path: String
  /// The query string (its parts joined with `&`), or nil.
  public var query: String?
  /// `Origin` (browsers send it; `null` for opaque origins).
  public var origin: String?
  /// `Host`.
  public var host: String?
  /// `Cookie`.
  public var cookie: String?
  /// `Authorization`.
  public var authorization: String?
  /// `Sec-WebSocket-Protocol`: the subprotocols the client offers.
  public var webSocketProtocol: String?
  /// `X-Forwarded-For` (trust it only from a known proxy).
  public var forwardedFor: String?
  /// `X-Forwarded-Proto`: the scheme the client used with the proxy (trust it only from a known proxy).
  public var forwardedProto: String?
  /// `X-Forwarded-Host`: the `Host` the client sent the proxy (trust it only from a known proxy).
  public var forwardedHost: String?
  /// `Forwarded` (RFC 7239: `for=`, `proto=`, `host=` per hop; trust it only from a known proxy).
  public var forwarded: String?
  /// `User-Agent`.
  public var userAgent: String?
  /// The TCP peer's address (IPv4 or IPv6 text).
  public var peerAddress: String

  /// A request; every header defaults to absent.
  public init(
    path: String, query: String? = nil, origin: String? = nil, host: String? = nil, cookie: String? = nil,
    authorization: String? = nil, webSocketProtocol: String? = nil, forwardedFor: String? = nil,
    forwardedProto: String? = nil, forwardedHost: String? = nil, forwarded: String? = nil,
    userAgent: String? = nil, peerAddress: String = "127.0.0.1"
  ) {
    self.path = path
    self.query = query
    self.origin = origin
    self.host = host
    self.cookie = cookie
    self.authorization = authorization
    self.webSocketProtocol = webSocketProtocol
    self.forwardedFor = forwardedFor
    self.forwardedProto = forwardedProto
    self.forwardedHost = forwardedHost
    self.forwarded = forwarded
    self.userAgent = userAgent
    self.peerAddress = peerAddress
  }
}

/// The server's answer to an `UpgradeRequest`.
public enum UpgradeDecision: Sendable {
  /// Becomes a websocket; the context is handed to `connectionOpened`.
  case accept(context: (any Sendable)?)
  /// Answered with this HTTP status (e.g. 400, 403, 404, 429) and reason (the plain-text body);
  /// it never becomes a websocket.
  case refuse(status: Int, reason: String)
}
