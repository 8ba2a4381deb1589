import CLibWebSockets
import Foundation
import ReorderBasics

/// An HTTP/1.1 client on libwebsockets' client HTTP: one lws context and its own service thread
/// (`lws-http-client`), many requests at once, each with its own timeout. Redirects are not
/// followed; a new connection per request.
///
/// `send` may be called from any thread; completions run on the client's service thread (keep
/// them short: hand the result to a thread of your own). Call `shutdown()` when done: requests
/// still in flight then fail with `.unavailable`.
public final class HTTPClient: @unchecked Sendable {
  let loop = ServiceLoop(name: "lws-http-client")
  let arena = CArena()
  let allowSelfSigned: Bool
  let supportsTLS: Bool
  private let stopped = Locked(false)
  /// Service thread only: the requests in flight, by the address of their exchange.
  var live: [ObjectIdentifier: HTTPClientExchange] = [:]

  /// Most bytes of a response body kept; the rest is read and dropped.
  public static let maxResponseBytes = 64 * 1024

  /// Creates the context and starts its service thread.
  /// - Parameters:
  ///   - supportsTLS: set up TLS so `https://` URLs work (lws 4.1.6 leaks its client TLS state
  ///     when a TLS-capable client context is destroyed: make one per process, not per request).
  ///   - allowSelfSigned: accept self-signed certificates and skip the host name check (tests).
  /// - Throws: `TransportError.contextCreationFailed` when lws refuses the context.
  public init(supportsTLS: Bool = true, allowSelfSigned: Bool = false) throws {
    self.supportsTLS = supportsTLS
    self.allowSelfSigned = allowSelfSigned
    try loop.createClientContext(
      protocolName: "reorder-http-client", callback: httpClientCallback, owner: self, supportsTLS: supportsTLS,
      arena: arena,
      failure: "could not create the HTTP client context")
    loop.start()
  }

  /// Whether `url` is one `send` takes: `http://` or `https://`, a host, a port in range.
  public static func accepts(url: String) -> Bool { WebSocketURL(url, schemes: WebSocketURL.httpSchemes) != nil }

  /// Any thread: sends `request`; `completion` runs once on the client's service thread with the
  /// response (any status) or why there is none.
  public func send(
    _ request: HTTPClientRequest,
    completion: @escaping @Sendable (Result<HTTPClientResponse, HTTPClientError>) -> Void
  ) {
    guard let target = WebSocketURL(request.url, schemes: WebSocketURL.httpSchemes) else {
      completion(.failure(.invalidURL(request.url)))
      return
    }
    let posted = loop.post { [self] in
      let exchange = HTTPClientExchange(
        request: request, target: target, headroom: Int(reorder_lws_pre()), completion: completion)
      guard supportsTLS || !target.secure else {
        exchange.finish(.failure(.unavailable("this HTTP client was created without TLS support (https)")))
        return
      }
      open(exchange)
    }
    if !posted { completion(.failure(.unavailable("the HTTP client was shut down"))) }
  }

  /// Any thread but the client's service thread: fails what is in flight and stops the thread.
  /// Idempotent.
  public func shutdown() {
    let first = stopped.withLock { stopped in
      defer { stopped = true }
      return !stopped
    }
    if first {
      loop.post { [self] in
        // Before the context goes: the exchanges' timers live in its lists.
        for exchange in live.values { finished(exchange, .failure(.unavailable("the HTTP client was shut down"))) }
        loop.requestStop()
      }
    }
    loop.waitUntilFinished()
  }

  /// Service thread: starts the lws client connection and the request's timeout.
  private func open(_ exchange: HTTPClientExchange) {
    let target = exchange.target
    live[ObjectIdentifier(exchange)] = exchange
    let timer = LWSTimer { [unowned self, unowned exchange] in self.timedOut(exchange) }
    exchange.timer = timer
    if let context = loop.context {
      timer.schedule(on: context, afterMicroseconds: Int(max(0, exchange.request.timeoutSeconds) * 1_000_000))
    }
    var info = lws_client_connect_info()
    info.context = loop.context
    info.port = Int32(target.port)
    var flags = Int32(LCCSCF_HTTP_NO_FOLLOW_REDIRECT.rawValue)
    if target.secure {
      flags |= Int32(LCCSCF_USE_SSL.rawValue)
      if allowSelfSigned {
        flags |= Int32(LCCSCF_ALLOW_SELFSIGNED.rawValue | LCCSCF_SKIP_SERVER_CERT_HOSTNAME_CHECK.rawValue)
      }
    }
    info.ssl_connection = flags
    info.opaque_user_data = Unmanaged.passUnretained(exchange).toOpaque()
    let name = target.host.contains(":") ? "[\(target.host)]" : target.host  // an IPv6 literal
    let hostHeader = target.port == (target.secure ? 443 : 80) ? name : "\(name):\(target.port)"
    let wsi = target.host.withCString { address in
      target.path.withCString { path in
        hostHeader.withCString { host in
          exchange.request.method.withCString { method in
            "reorder-http-client".withCString { protocolName in
              "http/1.1".withCString { alpn in
                info.address = address
                info.path = path
                info.host = host
                info.method = method
                info.local_protocol_name = protocolName
                info.alpn = alpn
                return lws_client_connect_via_info(&info)
              }
            }
          }
        }
      }
    }
    if wsi == nil {
      finished(exchange, .failure(.connectFailed("could not start connecting to \(target.host):\(target.port)")))
    } else if !exchange.finished {
      exchange.wsi = wsi
    }
  }

  /// Service thread: the timeout fired before the response was whole; the connection is dropped.
  private func timedOut(_ exchange: HTTPClientExchange) {
    let wsi = exchange.wsi
    finished(exchange, .failure(.timeout))
    if let wsi { lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC) }
  }

  /// Service thread: the exchange is over; report it and forget it. The wsi's opaque pointer is
  /// cleared first: lws may still call back for it (while it closes), after the exchange is freed.
  func finished(_ exchange: HTTPClientExchange, _ result: Result<HTTPClientResponse, HTTPClientError>) {
    if let wsi = exchange.wsi { lws_set_opaque_user_data(wsi, nil) }
    exchange.wsi = nil
    live[ObjectIdentifier(exchange)] = nil
    exchange.finish(result)
  }
}
