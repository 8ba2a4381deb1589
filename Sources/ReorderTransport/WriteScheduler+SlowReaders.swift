import CLibWebSockets
import ReorderBasics

/// Slow readers (`SlowReaderWatch` has the rules): the kernel is looked at for a connection once
/// per `checkEveryBytes` queued to it; a connection found with more unread than that is watched,
/// gets presence only while its reader is within `gateBytes` (`ServerConnection.isBusy`), and is
/// swept every `sweepSeconds`, which closes it (4008) once its backlog has stayed high.
/// Service thread only.
final class SlowReaderSweep {
  let limits: SlowReaderLimits
  let sweepSeconds: Double
  /// The watched connections.
  private(set) var watched: [ConnectionID: ServerConnection] = [:]
  private var timer: LWSTimer?
  /// Connections closed with 4008.
  private(set) var closes = 0

  init(limits: SlowReaderLimits, sweepSeconds: Double) {
    self.limits = limits
    self.sweepSeconds = sweepSeconds
  }

  /// Starts watching `conn` (its watch said so) and arms the sweep.
  func watch(_ conn: ServerConnection, context: OpaquePointer?) {
    watched[conn.id] = conn
    guard let context, timer?.firesAt == nil else { return }
    let timer = self.timer ?? LWSTimer {}
    self.timer = timer
    timer.schedule(on: context, afterMicroseconds: Int(sweepSeconds * 1e6))
  }

  /// Stops watching `conn` (it closed or caught up).
  func forget(_ conn: ServerConnection) { watched[conn.id] = nil }

  /// Sets what the sweep timer does when it fires.
  func onSweep(_ action: @escaping () -> Void) {
    let timer = self.timer ?? LWSTimer {}
    self.timer = timer
    timer.action = action
  }

  /// Re-arms the sweep while anything is watched.
  func rearm(context: OpaquePointer?) {
    guard !watched.isEmpty, let context, let timer else { return }
    timer.schedule(on: context, afterMicroseconds: Int(sweepSeconds * 1e6))
  }

  /// Counts a 4008 close.
  func closed() { closes += 1 }

  /// Stops sweeping (shutdown).
  func cancel() { timer?.cancel() }
}

extension WriteScheduler {
  /// A frame of `bytes` was queued to `conn`: look at its kernel backlog when it is due, and watch
  /// it when too much of what it was sent is unread.
  func slowReaderQueued(_ conn: ServerConnection, bytes: Int) {
    guard conn.ownsSocket, conn.slowReader.queued(bytes: bytes, limits: slowReaders.limits),
      let sample = SocketBacklog.read(socket: conn.socket)
    else { return }
    let unread = conn.slowReader.unread(sample)
    guard conn.slowReader.checked(unread: unread, limits: slowReaders.limits) else { return }
    Log.debug("slow reader watched", ["connection": conn.id.description, "unread": String(unread)])
    slowReaders.watch(conn, context: context())
  }

  /// The periodic look at every watched connection: release those that caught up, close those
  /// whose backlog stayed high (`SlowReaderWatch.sweep`).
  func sweepSlowReaders() {
    let now = Double(lws_now_usecs()) / 1e6
    for conn in slowReaders.watched.values {
      guard !conn.isClosed, conn.pendingClose == nil else {
        slowReaders.forget(conn)
        continue
      }
      guard let sample = SocketBacklog.read(socket: conn.socket) else { continue }
      let unread = conn.slowReader.unread(sample)
      switch conn.slowReader.sweep(unread: unread, queued: conn.outgoing.bytes, now: now, limits: slowReaders.limits) {
      case .watch:
        break
      case .release:
        slowReaders.forget(conn)
      case .close(let bytes, let seconds):
        slowReaders.forget(conn)
        closeSlowReader(conn, bytes: bytes, seconds: seconds)
      }
    }
    slowReaders.rearm(context: context())
  }

  /// Closes a reader whose backlog stayed high with 4008: what is still queued for it is dropped
  /// (it is stale), the close frame follows what the kernel already holds, and a reader that
  /// reads nothing at all is cut `slowCloseGraceSeconds` later.
  func closeSlowReader(_ conn: ServerConnection, bytes: Int, seconds: Double) {
    let reason = "slow reader: \(bytes) bytes unread for \(Int(seconds.rounded())) s"
    Log.warn("websocket closed", ["connection": conn.id.description, "reason": reason])
    slowReaders.closed()
    discardQueue(conn)
    conn.pendingClose = .init(code: CloseCode.slowReader, reason: reason)
    resumeReading(conn)
    lws_callback_on_writable(conn.wsi)
    lws_set_timeout(conn.wsi, PENDING_TIMEOUT_USER_OK, Self.slowCloseGraceSeconds)
  }

  /// Seconds a slow reader closed with 4008 has to read up to the close frame before it is cut.
  static let slowCloseGraceSeconds: Int32 = 10
}
