/// One HTTP request to send with `HTTPClient`.
public struct HTTPClientRequest: Sendable {
  /// `http://host[:port]/path` or `https://…`.
  public var url: String
  /// The method (`POST`, `GET`, …).
  public var method: String
  /// Request headers, names in lower case (`content-type`); `host` and `content-length` are added.
  public var headers: [(name: String, value: String)]
  /// The body (sent with a `content-length`).
  public var body: [UInt8]
  /// Seconds from the start of the request to the whole response; beyond it the request fails
  /// with `.timeout` and its connection is dropped.
  public var timeoutSeconds: Double

  /// A request; `timeoutSeconds` bounds it from start to the whole response.
  public init(
    url: String, method: String = "POST", headers: [(name: String, value: String)] = [], body: [UInt8] = [],
    timeoutSeconds: Double = 10
  ) {
    self.url = url
    self.method = method
    self.headers = headers
    self.body = body
    self.timeoutSeconds = timeoutSeconds
  }
}

/// The answer to an `HTTPClientRequest`.
public struct HTTPClientResponse: Sendable, Equatable {
  /// The status code (redirects are not followed: a 3xx is the answer).
  public var status: Int
  /// The body, at most `HTTPClient.maxResponseBytes` of it.
  public var body: [UInt8]
}

/// Why an HTTP request got no response.
public enum HTTPClientError: Error, Equatable, CustomStringConvertible {
  /// The URL is not `http://` or `https://` with a host (and a port in range).
  case invalidURL(String)
  /// No connection: refused, unreachable, a TLS failure (lws' reason).
  case connectFailed(String)
  /// The connection closed before a response status arrived.
  case closedEarly
  /// No whole response within the request's timeout.
  case timeout
  /// The client was shut down first (or was created without TLS for an `https` URL).
  case unavailable(String)

  public var description: String {
    switch self {
    case .invalidURL(let url): "invalid HTTP URL '\(url)': expected http://host[:port]/path or https://…"
    case .connectFailed(let why): "HTTP connection failed: \(why)"
    case .closedEarly: "the connection closed before a response"
    case .timeout: "no response before the timeout"
    case .unavailable(let why): why
    }
  }
}

/// One request in flight on the client's service thread: what to send, what came back, and its
/// timeout. Service thread only.
final class HTTPClientExchange {
  let request: HTTPClientRequest
  let target: WebSocketURL
  let completion: @Sendable (Result<HTTPClientResponse, HTTPClientError>) -> Void
  /// The body with `LWS_PRE` bytes of headroom in front, as `lws_write` wants it.
  var outgoing: [UInt8]
  var bodySent = false
  var status: Int?
  var received: [UInt8] = []
  var wsi: OpaquePointer?
  var timer: LWSTimer?
  private(set) var finished = false

  init(
    request: HTTPClientRequest, target: WebSocketURL, headroom: Int,
    completion: @escaping @Sendable (Result<HTTPClientResponse, HTTPClientError>) -> Void
  ) {
    self.request = request
    self.target = target
    self.completion = completion
    outgoing = [UInt8](repeating: 0, count: headroom) + request.body
  }

  /// Reports the outcome once, and disarms the timeout.
  func finish(_ result: Result<HTTPClientResponse, HTTPClientError>) {
    guard !finished else { return }
    finished = true
    timer?.cancel()
    timer = nil
    completion(result)
  }
}
