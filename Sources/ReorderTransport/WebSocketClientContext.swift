import CLibWebSockets
import Foundation
import ReorderBasics

/// One lws client context + service thread, many connections (the load tool opens 1,000 on one).
///
/// `onEvent` callbacks run on the context's service thread: keep them short, and never call
/// `shutdown()` from inside one. Call `shutdown()` when done: until then the service thread runs
/// (and keeps the context alive).
public final class WebSocketClientContext: @unchecked Sendable {
  let loop = ServiceLoop(name: "lws-client")
  let arena = CArena()
  let maxMessageBytes: Int
  let allowSelfSigned: Bool
  let supportsTLS: Bool
  private let nextID = Locked<UInt64>(0)
  private let stopped = Locked(false)

  /// Service thread only: connections not yet finished (they keep themselves alive through this).
  var live: [UInt64: ClientConnection] = [:]

  /// Creates the context and starts its service thread.
  /// - Parameters:
  ///   - maxMessageBytes: larger incoming messages close the connection with 1009.
  ///   - allowSelfSigned: accept self-signed server certificates and skip the host name check
  ///     (tests only).
  ///   - supportsTLS: set up TLS so `wss://` URLs work. Pass false for a `ws://`-only context:
  ///     lws 4.1.6 leaks its client TLS state every time a TLS-capable client context is
  ///     destroyed.
  public init(maxMessageBytes: Int = 16 << 20, allowSelfSigned: Bool = false, supportsTLS: Bool = true) throws {
    self.maxMessageBytes = maxMessageBytes
    self.allowSelfSigned = allowSelfSigned
    self.supportsTLS = supportsTLS
    try loop.createClientContext(
      protocolName: "reorder-client", callback: clientCallback, owner: self, supportsTLS: supportsTLS, arena: arena,
      failure: "could not create the websocket client context")
    // The thread keeps this object alive until it stops (lws holds an unretained pointer to it), so
    // a context dropped without shutdown() leaks its thread instead of crashing it.
    loop.start { [self] in
      for connection in live.values {
        connection.finish(code: nil, reason: "the client context was shut down")
      }
      live.removeAll()
    }
  }

  /// Any thread. Opens a websocket to `url` (`ws://host:port/path` or `wss://…`); `onEvent` is
  /// called on the service thread: `.opened`, messages, then exactly one `.closed`.
  /// `subprotocol` is sent as `Sec-WebSocket-Protocol` (nil: no header); the load tool's mirror
  /// baseline needs `lws-mirror-protocol`.
  public func connect(
    url: String, protocol subprotocol: String? = nil,
    onEvent: @escaping @Sendable (ClientConnection, WebSocketEvent) -> Void
  ) -> ClientConnection {
    let id = nextID.withLock {
      $0 += 1
      return $0
    }
    let connection = ClientConnection(id: id, context: self, maxMessageBytes: maxMessageBytes, onEvent: onEvent)
    let target = WebSocketURL(url)
    let posted = loop.post { [self] in
      guard let target else {
        connection.finish(code: nil, reason: TransportError.invalidURL(url).description)
        return
      }
      guard supportsTLS || !target.secure else {
        connection.finish(code: nil, reason: "this client context was created without TLS support (wss)")
        return
      }
      open(connection, target, subprotocol: subprotocol)
    }
    if !posted {
      onEvent(connection, .closed(code: nil, reason: "the client context was shut down"))
    }
    return connection
  }

  /// Any thread: runs `work` on the service thread soon.
  public func post(_ work: @escaping @Sendable () -> Void) {
    loop.post(work)
  }

  /// Any thread but the service thread: closes every connection (each gets `.closed`) and stops
  /// the service thread. Idempotent.
  public func shutdown() {
    let first = stopped.withLock { stopped in
      defer { stopped = true }
      return !stopped
    }
    if first { loop.post { [self] in loop.requestStop() } }
    loop.waitUntilFinished()
  }

  /// Service thread: starts the lws client connection.
  private func open(_ connection: ClientConnection, _ target: WebSocketURL, subprotocol: String? = nil) {
    live[connection.id] = connection
    var info = lws_client_connect_info()
    info.context = loop.context
    info.port = Int32(target.port)
    info.ssl_connection =
      target.secure
      ? Int32(LCCSCF_USE_SSL.rawValue)
        | (allowSelfSigned
          ? Int32(LCCSCF_ALLOW_SELFSIGNED.rawValue | LCCSCF_SKIP_SERVER_CERT_HOSTNAME_CHECK.rawValue) : 0)
      : 0
    info.opaque_user_data = Unmanaged.passUnretained(connection).toOpaque()
    let hostHeader = target.port == (target.secure ? 443 : 80) ? target.host : "\(target.host):\(target.port)"
    let wsi = target.host.withCString { address in
      target.path.withCString { path in
        hostHeader.withCString { host in
          "reorder-client".withCString { protocolName in
            (subprotocol ?? "").withCString { requested in
              info.address = address
              info.path = path
              info.host = host
              info.origin = host
              info.local_protocol_name = protocolName
              info.protocol = subprotocol == nil ? nil : requested
              return lws_client_connect_via_info(&info)
            }
          }
        }
      }
    }
    if wsi == nil {
      finished(connection, wsi: nil, code: nil, reason: "could not start connecting to \(target.host):\(target.port)")
    }
  }

  /// Service thread: the connection is over; deliver `.closed` and drop it.
  ///
  /// The wsi's opaque pointer is cleared first: lws may still call back for it (e.g. while it is
  /// destroyed), and the connection object may be freed once `live` lets go of it.
  func finished(_ connection: ClientConnection, wsi: OpaquePointer?, code: UInt16?, reason: String) {
    if let wsi { lws_set_opaque_user_data(wsi, nil) }
    live[connection.id] = nil
    connection.finish(code: code, reason: reason)
  }

  /// Number of connections not yet closed (service thread).
  var liveCount: Int { live.count }
}
