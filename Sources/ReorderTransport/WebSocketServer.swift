import CLibWebSockets
import Foundation
import ReorderBasics

/// The websocket + HTTP server: one lws context, one service thread.
///
/// Serves websockets the handler admits (`WebSocketServerHandler.admit`), HTTP requests the handler
/// routes, and static files from `webRoot` for the rest. Everything that touches a `struct lws *`
/// runs on the service thread: the handler is called there, and `send` / `close` must be called
/// there (they assert it). Other threads use `post(_:)`.
public final class WebSocketServer: @unchecked Sendable {
  let configuration: TransportConfiguration
  /// Service thread only (after `start()`).
  let handler: WebSocketServerHandler
  let loop: ServiceLoop
  let arena = CArena()
  let staticFiles: StaticFiles?
  let protocolName = "reorder"

  /// The bound port; set by `start()` before the service thread runs (so any callback sees it).
  public private(set) var listenPort = 0
  // Service thread only.
  let connections = ConnectionTable()
  /// Queues, corked and parallel writes, backpressure, heap trims.
  let writes: WriteScheduler
  /// Pings silent websockets and drops those silent for the idle timeout.
  let keepalive: KeepaliveSweep
  /// The extra ticks the handler asks for.
  private(set) lazy var ticks = TickScheduler { [unowned self] in
    guard !windDown.isShuttingDown else { return }
    handler.transportTick()
    writes.flushSends()
  }
  /// The HTTP requests being read or answered, and their responses (service thread only).
  var http = HTTPExchangeTable()
  /// Upgrades the handler accepted, until their websocket is established.
  var admittedUpgrades: [OpaquePointer: AdmittedUpgrade] = [:]
  /// How far the server has wound down: draining, shutting down (service thread only).
  var windDown = WindDown()
  /// Flushes what a close sent when the close came from one of lws' timers (`flushSoonAfterClose`).
  var closeFlushTimer: LWSTimer?
  /// What `statistics` counts outside the write path: connections opened and refused, closes by
  /// code, messages and bytes received, HTTP requests (the other fields are filled when read).
  var counted = TransportStatistics()

  private let openCount = Locked(0)
  private let lifecycle = Locked(Lifecycle.created)

  enum Lifecycle {
    case created
    case running
    case stopped
  }

  /// Prepares a server; nothing is bound until `start()`.
  /// - Throws: `TransportError.invalidConfiguration` when the configuration is inconsistent.
  public init(configuration: TransportConfiguration, handler: WebSocketServerHandler) throws {
    try configuration.validate()
    self.configuration = configuration
    let loop = ServiceLoop(name: "lws-server", waiting: configuration.eventLoop)
    self.loop = loop
    writes = WriteScheduler(
      cork: configuration.corkBytes > 0
        ? FrameCork(limitBytes: configuration.corkBytes, headroom: Int(reorder_lws_pre())) : nil,
      parallelSender: configuration.parallelFanout && configuration.tlsCertificatePath == nil
        ? ParallelSender() : nil,
      slowReaders: SlowReaderSweep(
        limits: configuration.slowReaders, sweepSeconds: configuration.slowReaderSweepSeconds),
      context: { loop.context })
    keepalive = KeepaliveSweep(
      rule: KeepaliveRule(
        pingSeconds: Double(configuration.pingIntervalSeconds), idleSeconds: Double(configuration.idleTimeoutSeconds)))
    self.handler = handler
    if let webRoot = configuration.webRoot {
      guard let files = StaticFiles(root: webRoot) else {
        throw TransportError.invalidConfiguration("web root '\(webRoot)' is not a directory")
      }
      staticFiles = files
    } else {
      staticFiles = nil
    }
    LibWebSocketsLog.install()
  }

  /// Binds, starts the service thread, returns the bound port (the real one when 0 was asked).
  ///
  /// Raises the process' soft RLIMIT_NOFILE to its hard limit (at most 65,536) first, because lws
  /// sizes its connection tables from it.
  /// - Throws: `TransportError` when the port cannot be bound or the TLS files are unusable.
  public func start() throws -> Int {
    try lifecycle.withLock { state in
      guard state == .created else { throw TransportError.alreadyStarted }
      state = .running
    }
    var info = makeContextInfo()
    do {
      let tls = configuration.tlsCertificatePath.map { " with TLS certificate \($0)" } ?? ""
      try loop.createContext(
        &info,
        failure: "could not listen on \(configuration.host):\(configuration.port)\(tls) "
          + "(port already in use, address not on this machine, or unreadable certificate/key?)")
    } catch {
      lifecycle.withLock { $0 = .stopped }
      throw error
    }
    let port = Int(lws_get_vhost_listen_port(lws_get_vhost_by_name(loop.context, "default")))
    listenPort = port
    // What the callbacks of one pass sent leaves together when the pass ends (`flushSends`).
    loop.afterPass = { [unowned self] in
      if writes.hasUnflushed { writes.flushSends() }
    }
    loop.start { [self] in
      writes.parallelSender?.stop()
      lifecycle.withLock { $0 = .stopped }
      openCount.withLock { $0 = 0 }
    }
    Log.info(
      "listening",
      [
        "host": configuration.host, "port": String(port), "tls": String(configuration.tlsCertificatePath != nil),
        "event_loop": loop.waitsWith.rawValue,
      ])
    return port
  }

  /// Service thread only. Queues a text message (as fragments when it is longer than
  /// `OutgoingQueue.fragmentBytes`, written one per writeable callback). Returns false when the connection is gone or was
  /// closed (or is closing, e.g. because its queue overflowed). A presence frame dropped because the
  /// connection is busy (`isBusy(_:)`) still returns true.
  @discardableResult
  public func send(_ text: [UInt8], to connection: ConnectionID, priority: SendPriority = .data) -> Bool {
    loop.assertServiceThread()
    guard let conn = connections[connection], conn.pendingClose == nil else { return false }
    if priority == .presence && conn.isBusy { return writes.admit(.dropped, conn, bytes: text.count) }
    let queued = conn.outgoing.enqueue(fragmenting: text)
    return writes.admit(queued.result, conn, bytes: text.count, frames: queued.frames)
  }

  /// Service thread only. Queues the same text frame to every connection in `connections`, copying
  /// the bytes once (all queues share one buffer). Returns how many connections took it (as `send`
  /// would have returned true).
  @discardableResult
  public func broadcast(
    _ text: [UInt8], to connections: [ConnectionID], priority: SendPriority = .data
  ) -> Int {
    loop.assertServiceThread()
    let buffer = FrameBuffer(text, headroom: Int(reorder_lws_pre()))
    var accepted = 0
    for connection in connections {
      guard let conn = self.connections[connection], conn.pendingClose == nil else { continue }
      let result: OutgoingQueue.EnqueueResult =
        priority == .presence && conn.isBusy ? .dropped : conn.outgoing.enqueue(shared: buffer)
      if writes.admit(result, conn, bytes: text.count) { accepted += 1 }
    }
    return accepted
  }

  /// Service thread only. Queued data is flushed first, then the close frame with code and reason.
  public func close(_ connection: ConnectionID, code: UInt16, reason: String) {
    loop.assertServiceThread()
    guard let conn = connections[connection], conn.pendingClose == nil else { return }
    conn.pendingClose = .init(code: code, reason: reason)
    // Read on (what arrives is ignored): a socket closed with unread data answers with a reset,
    // which would destroy the close frame before the peer reads it.
    writes.resumeReading(conn)
    lws_callback_on_writable(conn.wsi)
  }

  /// Any thread: runs `work` on the service thread soon (dropped once the server has stopped).
  public func post(_ work: @escaping @Sendable () -> Void) {
    loop.post(work)
  }

  /// Number of open websocket connections the handler accepted (any thread).
  public var connectionCount: Int { openCount.withLock { $0 } }

  /// True while the service thread runs (any thread).
  public var isRunning: Bool { lifecycle.withLock { $0 == .running } }

  func adjustOpenCount(_ delta: Int) {
    openCount.withLock { $0 += delta }
  }
}
