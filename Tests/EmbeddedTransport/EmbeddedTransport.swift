import Foundation
import ReorderBasics
import ReorderTransport

/// An in-process transport (like swift-nio's `EmbeddedChannel`): the same handler a
/// `WebSocketServer` runs, with no sockets, no lws and no thread of its own.
///
/// The thread that drives it is its service thread: it opens connections (`connect`), delivers
/// messages (`deliver`), makes HTTP requests (`request`) and runs what other threads posted and the
/// ticks the handler asked for (`runPending`, `drive(until:)`, `fireTick`). What was posted before
/// a client acts runs before the handler hears of it, as a service loop woken by the post would
/// have run it first. What the handler sends
/// is recorded per connection, in order (`events(of:)`, `nextEvent(of:)`). Other threads (a
/// store's, a responder's) only `post`, which wakes a driver waiting in `drive`.
///
/// As the real transport: a message over `maxMessageBytes` closes its connection with 1009; a
/// connection the handler closes gets its close event at once and the handler hears
/// `connectionClosed` on the next run (never from inside one of its own calls); upgrades are refused
/// with 503 while draining or shutting down; `.presence` sends to a connection marked busy are
/// dropped. Ticks fire when due on `MonotonicClock` (the clock the handler reads), or at once
/// through `fireTick`. No static files: a GET the handler passes on is 404.
///
/// Driven from one thread at a time. `@unchecked Sendable`: only the inbox is shared, under its
/// condition's lock; the rest belongs to the driving thread.
public final class EmbeddedTransport: ServerTransport, @unchecked Sendable {
  /// What it was made with (`maxMessageBytes` is enforced).
  public let configuration: TransportConfiguration
  /// The handler it calls (owned, as `WebSocketServer` owns its handler).
  public let handler: any WebSocketServerHandler
  /// The port the handler is told it listens on (`listenPort`; nothing is bound).
  public var nominalPort: Int

  /// Posted work, and the condition a waiting driver sleeps on; `woken` wakes it with no work (an
  /// HTTP answer), so that a wake-up is not taken for work done by a driver polling a condition.
  private let inbox = NSCondition()
  private var posted: [@Sendable () -> Void] = []
  private var woken = false
  private let lifecycle = Locked((running: false, stopped: false, open: 0))

  // The driving thread only.
  private var connections: [ConnectionID: Bool] = [:]  // open ones; true once the handler closed it
  private var outbox: [ConnectionID: [EmbeddedEvent]] = [:]
  private var nextID: UInt64 = 1
  private var tickDue: Double?
  private var busy: Set<ConnectionID> = []
  private var counters = TransportStatistics()
  private var draining = false
  private var shuttingDown = false
  /// Above 0 while a call into the handler (or posted work) runs.
  private var depth = 0

  /// A transport for `handler`; `nominalPort` defaults to the configuration's port.
  public init(configuration: TransportConfiguration, handler: any WebSocketServerHandler, nominalPort: Int? = nil) {
    self.configuration = configuration
    self.handler = handler
    self.nominalPort = nominalPort ?? configuration.port
  }

  // MARK: ServerTransport (the handler's side)

  @discardableResult
  public func send(_ text: [UInt8], to connection: ConnectionID, priority: SendPriority) -> Bool {
    guard connections[connection] == false else { return false }
    if priority == .presence && busy.contains(connection) {
      counters.presenceDropped += 1
      return true
    }
    outbox[connection, default: []].append(.text(text))
    counters.framesSent += 1
    counters.bytesSent += text.count
    return true
  }

  @discardableResult
  public func broadcast(_ text: [UInt8], to connections: [ConnectionID], priority: SendPriority) -> Int {
    connections.reduce(0) { $0 + (send(text, to: $1, priority: priority) ? 1 : 0) }
  }

  public func close(_ connection: ConnectionID, code: UInt16, reason: String) {
    guard connections[connection] == false else { return }
    connections[connection] = true
    outbox[connection, default: []].append(.closed(code: code, reason: reason))
    // The handler hears of it on the next run, as it would once lws closed the socket.
    post { [self] in gone(connection, code: code) }
  }

  public func requestTick(afterSeconds seconds: Double) {
    guard !shuttingDown else { return }
    let due = MonotonicClock.now() + max(0, seconds)
    tickDue = min(tickDue ?? due, due)
  }

  public func isBusy(_ connection: ConnectionID) -> Bool { busy.contains(connection) }
  public var hasBacklog: Bool { !busy.isEmpty }
  public var isDraining: Bool { draining }

  public var statistics: TransportStatistics {
    var s = counters
    s.open = connectionCount
    return s
  }

  public func post(_ work: @escaping @Sendable () -> Void) {
    guard !lifecycle.withLock({ $0.stopped }) else { return }
    inbox.lock()
    posted.append(work)
    inbox.signal()
    inbox.unlock()
  }

  /// On the driving thread (its service thread): runs what was posted before, then `work`, now.
  @discardableResult
  public func postAndWait(timeoutSeconds: Double, _ work: @escaping @Sendable () -> Void) -> Bool {
    runPosted()
    calling { work() }
    return true
  }

  public var connectionCount: Int { lifecycle.withLock { $0.open } }
  public var listenPort: Int { nominalPort }
  public var isRunning: Bool { lifecycle.withLock { $0.running } }

  /// Marks it running; binds nothing. Returns `nominalPort`.
  public func start() throws -> Int {
    lifecycle.withLock { $0.running = true }
    return nominalPort
  }

  /// Closes every connection with 1001 `server shutting down`, runs what is pending (the handler
  /// hears each close) and stops; later posts are dropped. Idempotent.
  public func shutdown(timeoutSeconds: Double) {
    guard isRunning, !shuttingDown else { return }
    shuttingDown = true
    tickDue = nil
    for connection in openConnections {
      close(connection, code: CloseCode.goingAway, reason: "server shutting down")
    }
    runPosted()
    lifecycle.withLock {
      $0.running = false
      $0.stopped = true
    }
  }

  /// Closes every connection with 1012 and `reason` at once (the real one spreads them over
  /// `seconds`), refusing upgrades from now on; `completion` runs once the handler heard every
  /// close. Called from outside the handler, that is done before this returns.
  public func drain(overSeconds seconds: Double, reason: String, completion: @escaping @Sendable () -> Void) {
    guard !draining, !shuttingDown else {
      completion()
      return
    }
    draining = true
    for connection in openConnections { close(connection, code: CloseCode.serviceRestart, reason: reason) }
    post(completion)
    if depth == 0 { runPosted() }
  }

  /// No TLS here: nothing to read.
  public func reloadCertificate() throws(TransportError) {}

  // MARK: The test's side (the driving thread)

  /// The result of `connect`.
  public enum Upgrade: Sendable, Equatable {
    /// A websocket, open and announced to the handler.
    case opened(ConnectionID)
    /// Refused before it became a websocket, with this HTTP status and plain-text reason.
    case refused(status: Int, reason: String)
  }

  /// An upgrade, put to the handler as lws would put it (`admit`, then `connectionOpened`).
  public func connect(_ request: UpgradeRequest) -> Upgrade {
    runPostedFirst()
    if shuttingDown || draining {
      counters.refused += 1
      return .refused(
        status: 503, reason: shuttingDown ? "server shutting down" : "server draining: connect to another node")
    }
    switch calling({ handler.admit(request) }) {
    case .refuse(let status, let reason):
      counters.refused += 1
      return .refused(status: status, reason: reason)
    case .accept(let context):
      let id = ConnectionID(rawValue: nextID)
      nextID += 1
      connections[id] = false
      outbox[id] = []
      counters.opened += 1
      lifecycle.withLock { $0.open += 1 }
      calling { handler.connectionOpened(id, context: context) }
      return .opened(id)
    }
  }

  /// A whole message from the client. Ignored once the server closed the connection; over
  /// `maxMessageBytes` it closes the connection with 1009 instead. False when not delivered.
  @discardableResult
  public func deliver(_ message: [UInt8], to connection: ConnectionID, isBinary: Bool = false) -> Bool {
    runPostedFirst()
    guard connections[connection] == false else { return false }
    guard message.count <= configuration.maxMessageBytes else {
      close(
        connection, code: CloseCode.messageTooBig,
        reason: "message too large: \(message.count) bytes (limit \(configuration.maxMessageBytes))")
      return false
    }
    counters.messagesReceived += 1
    counters.bytesReceived += message.count
    calling { handler.connectionReceived(connection, message: message, isBinary: isBinary) }
    return true
  }

  /// A text message from the client.
  @discardableResult
  public func deliver(_ text: String, to connection: ConnectionID) -> Bool { deliver(Array(text.utf8), to: connection) }

  /// The client goes away (with `code`, or without a close frame: 1006); the handler hears it now.
  public func disconnect(_ connection: ConnectionID, code: UInt16? = CloseCode.normal) {
    runPostedFirst()
    guard connections[connection] == false else { return }
    gone(connection, code: code ?? 1006)
  }

  /// Marks a connection busy (as one whose socket backs up): presence sent to it is dropped.
  public func setBusy(_ connection: ConnectionID, _ isBusy: Bool) {
    if isBusy { busy.insert(connection) } else { busy.remove(connection) }
  }

  /// What `connection` was sent and not yet taken, in order.
  public func events(of connection: ConnectionID) -> [EmbeddedEvent] { outbox[connection] ?? [] }

  /// Takes the oldest event of `connection`, if any.
  public func nextEvent(of connection: ConnectionID) -> EmbeddedEvent? {
    guard var events = outbox[connection], !events.isEmpty else { return nil }
    let first = events.removeFirst()
    outbox[connection] = events
    return first
  }

  /// Whether the connection is open and not closed by the server.
  public func isOpen(_ connection: ConnectionID) -> Bool { connections[connection] == false }

  /// Seconds until the tick the handler asked for (nil: none asked).
  public var tickDueIn: Double? { tickDue.map { $0 - MonotonicClock.now() } }

  /// Runs the requested tick now, however far off it is due.
  public func fireTick() {
    tickDue = nil
    calling { handler.transportTick() }
  }

  /// Runs what was posted so far, then the tick if it is due. Returns whether anything ran.
  @discardableResult
  public func runPending() -> Bool {
    var ran = runPosted()
    if let due = tickDue, due <= MonotonicClock.now() {
      fireTick()
      ran = true
    }
    return ran
  }

  /// Runs posted work and due ticks until `done()` holds, sleeping in between until something is
  /// posted, the next tick is due or `pollSeconds` passed (`done` may read what other threads
  /// change without posting, e.g. a webhook receiver's deliveries); false when `timeoutSeconds`
  /// passed first.
  @discardableResult
  public func drive(timeoutSeconds: Double = 10, pollSeconds: Double = 0.005, until done: () -> Bool) -> Bool {
    let deadline = MonotonicClock.now() + timeoutSeconds
    while true {
      if done() { return true }
      if runPending() { continue }
      let now = MonotonicClock.now()
      guard now < deadline else { return false }
      let wake = min(deadline, tickDue ?? deadline, now + pollSeconds)
      inbox.lock()
      if posted.isEmpty && !woken && wake > now { _ = inbox.wait(until: Date(timeIntervalSinceNow: wake - now)) }
      woken = false
      inbox.unlock()
    }
  }

  /// Runs everything posted until nothing more is, without waiting.
  public func runUntilIdle() { while runPosted() {} }

  /// The next event of `connection`, running the transport until one is there (nil after
  /// `timeoutSeconds`).
  public func receive(from connection: ConnectionID, timeoutSeconds: Double = 10) -> EmbeddedEvent? {
    drive(timeoutSeconds: timeoutSeconds) { !(outbox[connection] ?? []).isEmpty }
    return nextEvent(of: connection)
  }

  /// An HTTP request as the real transport handles it: the handler's `route`, 413 for a body over
  /// the route's limit, the handler's answer waited for (nil after `timeoutSeconds`). A request the
  /// handler passes on gets 404 (GET, HEAD: no static files here) or 405.
  public func request(_ request: HTTPRequest, timeoutSeconds: Double = 10) -> HTTPResponse? {
    runPostedFirst()
    switch calling({ handler.route(request.head) }) {
    case .pass:
      return request.head.method == "GET" || request.head.method == "HEAD"
        ? .text(404, "not found\n")
        : .text(405, "method not allowed: only GET and HEAD are served here\n", headers: [("allow", "GET, HEAD")])
    case .handle(let maxBodyBytes, let tooLarge):
      guard request.body.count <= maxBodyBytes else {
        return tooLarge ?? .text(413, "request body too large (limit \(maxBodyBytes) bytes)\n")
      }
      counters.httpRequests += 1
      let answer = Locked<HTTPResponse?>(nil)
      let responder = HTTPResponder { [self] response in
        answer.withLock { $0 = response }
        wake()
      }
      calling { handler.handle(request, responder: responder) }
      drive(timeoutSeconds: timeoutSeconds) { answer.snapshot != nil }
      // The answer's wake-up was for this wait only: a driver polling a condition that makes
      // requests would otherwise never sleep.
      inbox.lock()
      woken = false
      inbox.unlock()
      return answer.snapshot
    }
  }

  // MARK: Internals

  private var openConnections: [ConnectionID] {
    connections.filter { !$0.value }.keys.sorted { $0.rawValue < $1.rawValue }
  }

  /// Forgets a connection and tells the handler (a close it chose, or the client's).
  private func gone(_ connection: ConnectionID, code: UInt16) {
    guard connections.removeValue(forKey: connection) != nil else { return }
    busy.remove(connection)
    lifecycle.withLock { $0.open -= 1 }
    counters.disconnects[code, default: 0] += 1
    calling { handler.connectionClosed(connection) }
  }

  /// Wakes a driver waiting in `drive`, with nothing to run.
  private func wake() {
    inbox.lock()
    woken = true
    inbox.signal()
    inbox.unlock()
  }

  /// A client's event comes after what was posted before it (not when called from the handler).
  private func runPostedFirst() {
    if depth == 0 { runPosted() }
  }

  /// Runs what was posted so far (not what that posts); whether there was any.
  @discardableResult
  private func runPosted() -> Bool {
    inbox.lock()
    let work = posted
    posted.removeAll()
    inbox.unlock()
    for item in work { calling(item) }
    return !work.isEmpty
  }

  private func calling<T>(_ body: () throws -> T) rethrows -> T {
    depth += 1
    defer { depth -= 1 }
    return try body()
  }
}

/// What a connection of an `EmbeddedTransport` was sent, in order.
public enum EmbeddedEvent: Sendable, Equatable {
  /// A message (a send, or a broadcast's copy).
  case text([UInt8])
  /// The server closed the connection with this code and reason (its last event).
  case closed(code: UInt16, reason: String)

  /// The message as text (nil for a close).
  public var text: String? {
    guard case .text(let bytes) = self else { return nil }
    return String(decoding: bytes, as: UTF8.self)
  }
}
