import Foundation
import ReorderBasics

/// The head of an HTTP request: method, path (percent-decoded once, no query), query and headers.
public struct HTTPRequestHead: Sendable, Equatable {
  /// `GET`, `HEAD`, `POST`, `PUT`, `PATCH`, `DELETE` or `OPTIONS`.
  public var method: String
  /// The path, percent-decoded once, without the query string.
  public var path: String
  /// The query string's parts joined with `&` (as lws decoded them), or nil.
  public var query: String?
  /// Request headers by lowercase name (those the transport reads: host, origin, authorization,
  /// cookie, content-type, content-length, accept, if-none-match, user-agent, x-forwarded-for).
  public var headers: [String: String]
  /// The TCP peer's address.
  public var peerAddress: String

  /// A request head.
  public init(
    method: String, path: String, query: String? = nil, headers: [String: String] = [:],
    peerAddress: String = "127.0.0.1"
  ) {
    self.method = method
    self.path = path
    self.query = query
    self.headers = headers
    self.peerAddress = peerAddress
  }

  /// The query's `name=value` pairs in order (a part without `=` has an empty value).
  public var queryItems: [(name: String, value: String)] {
    guard let query, !query.isEmpty else { return [] }
    return query.split(separator: "&").map { part in
      guard let equals = part.firstIndex(of: "=") else { return (String(part), "") }
      return (String(part[..<equals]), String(part[part.index(after: equals)...]))
    }
  }

  /// The first value of query parameter `name`.
  public func queryValue(_ name: String) -> String? {
    queryItems.first { $0.name == name }?.value
  }
}

/// A whole HTTP request: its head and body.
public struct HTTPRequest: Sendable, Equatable {
  /// Method, path, query, headers.
  public var head: HTTPRequestHead
  /// The body (empty when there is none).
  public var body: [UInt8]

  /// A request.
  public init(head: HTTPRequestHead, body: [UInt8] = []) {
    self.head = head
    self.body = body
  }
}

/// An HTTP response. The transport adds `content-length` and its security headers.
public struct HTTPResponse: Sendable, Equatable {
  /// The status code.
  public var status: Int
  /// Headers (lowercase names), e.g. `content-type`, `cache-control`, `allow`, `location`.
  public var headers: [(name: String, value: String)]
  /// The body.
  public var body: [UInt8]

  /// A response; `contentType` becomes its `content-type` header.
  public init(
    status: Int, contentType: String = "text/plain; charset=utf-8", headers: [(name: String, value: String)] = [],
    body: [UInt8] = []
  ) {
    self.status = status
    self.headers = [("content-type", contentType)] + headers
    self.body = body
  }

  /// A plain-text response.
  public static func text(_ status: Int, _ text: String, headers: [(name: String, value: String)] = []) -> Self {
    HTTPResponse(status: status, headers: headers, body: Array(text.utf8))
  }

  /// The value of header `name` (lowercase), if set.
  public func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }

  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.status == rhs.status && lhs.body == rhs.body
      && lhs.headers.map { [$0.name, $0.value] } == rhs.headers.map { [$0.name, $0.value] }
  }
}

/// Whether a request is the handler's.
public enum HTTPRouting: Sendable, Equatable {
  /// The handler answers it; a body longer than `maxBodyBytes` is refused with 413 before the
  /// handler sees the request (`tooLarge`, or a plain-text 413).
  case handle(maxBodyBytes: Int, tooLarge: HTTPResponse? = nil)
  /// Not the handler's: served from the static files (GET and HEAD), or 404 / 405.
  case pass
}

/// Answers one HTTP request, from any thread, once: later calls are ignored. A request whose client
/// went away meanwhile is dropped.
public final class HTTPResponder: Sendable {
  private let deliver: @Sendable (HTTPResponse) -> Void
  private let answered = Locked(false)

  /// A responder that hands the response to `deliver` (the transport's, or a test's).
  public init(deliver: @escaping @Sendable (HTTPResponse) -> Void) {
    self.deliver = deliver
  }

  /// Sends `response` (the first call only).
  public func respond(_ response: HTTPResponse) {
    let first = answered.withLock { done -> Bool in
      defer { done = true }
      return !done
    }
    if first { deliver(response) }
  }

  /// Whether `respond` was called.
  public var hasResponded: Bool { answered.withLock { $0 } }
}
