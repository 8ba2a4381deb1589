import Dispatch
import ReorderBasics

/// The transport port: what a server built on this module (its `WebSocketServerHandler`) asks of
/// the transport that calls it. `WebSocketServer` is the real one (lws, sockets, a service thread);
/// a test can put an in-process one behind it (`EmbeddedTransport`, which runs the same handler
/// with no sockets), so that everything above the transport is tested as it runs in production.
///
/// Threading: the members marked *service thread* are called only from the thread that calls the
/// handler (the one the handler itself runs on); the others from any thread.
///
/// A class-bound protocol: a handler holds its transport as `any ServerTransport`, one reference and
/// one witness table, so a call through the port is one indirect call and allocates nothing.
public protocol ServerTransport: AnyObject, Sendable {
  /// Service thread. Queues a text message for `connection`; false when it is gone or closing. A
  /// `.presence` message to a busy connection (`isBusy`) is dropped and still counts as taken.
  @discardableResult
  func send(_ text: [UInt8], to connection: ConnectionID, priority: SendPriority) -> Bool
  /// Service thread. Queues one message to each of `connections` (the bytes are copied once);
  /// returns how many took it.
  @discardableResult
  func broadcast(_ text: [UInt8], to connections: [ConnectionID], priority: SendPriority) -> Int
  /// Service thread. Sends what is queued, then closes with `code` and `reason`; the handler hears
  /// `connectionClosed` later, once the connection is gone.
  func close(_ connection: ConnectionID, code: UInt16, reason: String)
  /// Service thread. One `transportTick()` after `seconds`; a tick due sooner stands.
  func requestTick(afterSeconds seconds: Double)
  /// Service thread. Whether `connection` is too busy for presence.
  func isBusy(_ connection: ConnectionID) -> Bool
  /// Service thread. False when no connection is busy (then `isBusy` need not be asked).
  var hasBacklog: Bool { get }
  /// Service thread. What the transport has done so far.
  var statistics: TransportStatistics { get }
  /// Service thread. Whether a drain began (new upgrades are refused).
  var isDraining: Bool { get }

  /// Any thread. Runs `work` on the service thread soon (dropped once the transport stopped).
  func post(_ work: @escaping @Sendable () -> Void)
  /// Any thread but the service thread. Runs `work` on the service thread, after what was posted
  /// before it, and waits for it; false when it did not run within `timeoutSeconds`.
  @discardableResult
  func postAndWait(timeoutSeconds: Double, _ work: @escaping @Sendable () -> Void) -> Bool
  /// Any thread. Websockets open now.
  var connectionCount: Int { get }
  /// Any thread. The bound port (0 before `start()`, or when there is no socket).
  var listenPort: Int { get }
  /// Any thread. True between `start()` and the end of `shutdown`.
  var isRunning: Bool { get }

  /// Starts serving; returns the bound port.
  func start() throws -> Int
  /// Any thread but the service thread. Closes every websocket with 1001 and stops; idempotent.
  func shutdown(timeoutSeconds: Double)
  /// Any thread. Closes every websocket with 1012 and `reason` over `seconds`, refusing new ones
  /// from the start; `completion` runs on the service thread once the last is closed.
  func drain(overSeconds seconds: Double, reason: String, completion: @escaping @Sendable () -> Void)
  /// Reads the TLS certificate and key again (a transport without TLS does nothing).
  func reloadCertificate() throws(TransportError)
}

extension ServerTransport {
  /// `post` and a semaphore: what a transport with a service thread of its own does.
  @discardableResult
  public func postAndWait(timeoutSeconds: Double, _ work: @escaping @Sendable () -> Void) -> Bool {
    let done = DispatchSemaphore(value: 0)
    post {
      work()
      done.signal()
    }
    return done.wait(timeout: .now() + timeoutSeconds) == .success
  }
}

extension WebSocketServer: ServerTransport {}
