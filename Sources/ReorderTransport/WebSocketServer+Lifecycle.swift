import CLibWebSockets
import Foundation
import ReorderBasics

extension WebSocketServer {
  /// Any thread: stop accepting, flush queues (bounded by `timeoutSeconds`), close every websocket
  /// with 1001 "server shutting down", stop the service thread. Returns when done. Idempotent.
  ///
  /// "Stop accepting" is done by refusing new sockets in `LWS_CALLBACK_FILTER_NETWORK_CONNECTION`
  /// (lws 4.1 has no safe way to close only the listen socket; `lws_context_deprecate` would raise
  /// SIGINT once the last connection closes).
  public func shutdown(timeoutSeconds: Double = 1.5) {
    guard isRunning else { return }
    loop.post { [self] in beginShutdown(timeoutSeconds: timeoutSeconds) }
    loop.waitUntilFinished()
    TransportLog.info("stopped")
  }

  /// Service thread: starts the graceful close of every websocket.
  func beginShutdown(timeoutSeconds: Double) {
    guard !isShuttingDown else { return }
    isShuttingDown = true
    extraTickTimer?.cancel()
    TransportLog.info("shutting down", ["connections": String(connections.count)])
    for conn in connections.values where conn.pendingClose == nil {
      conn.pendingClose = .init(code: CloseCode.goingAway, reason: "server shutting down")
      lws_callback_on_writable(conn.wsi)
    }
    if connections.isEmpty {
      loop.requestStop()
      return
    }
    let timer = LWSTimer { [unowned self] in
      TransportLog.warn("shutdown flush timed out", ["connections": String(connections.count)])
      loop.requestStop()  // lws_context_destroy closes whatever is left
    }
    shutdownTimer = timer
    timer.schedule(on: loop.context!, afterMilliseconds: max(1, Int(timeoutSeconds * 1000)))
  }

  /// Service thread only: one extra `transportTick()` after `seconds` (at the soonest on the next
  /// pass of the service loop). An extra tick already due sooner stands
  /// (and serves this request); a later one is moved earlier.
  public func requestTick(afterSeconds seconds: Double) {
    loop.assertServiceThread()
    guard !isShuttingDown, let context = loop.context else { return }
    let microseconds = Int((max(0, seconds) * 1_000_000).rounded(.up))
    if extraTickTimer?.firesWithin(microseconds: microseconds) == true { return }
    let timer =
      extraTickTimer
      ?? LWSTimer { [unowned self] in
        guard !isShuttingDown else { return }
        handler.transportTick()
        flushSends()
      }
    extraTickTimer = timer
    timer.schedule(on: context, afterMicroseconds: microseconds)
  }

  /// Service thread, when a connection's queue has just drained. After a burst (at least
  /// `trimAfterBytes` queued since the last trim) has drained, gives the freed heap back to the
  /// system (`malloc_trim`) — but only once the server has been quiet for `trimQuietSeconds`: a
  /// trim walks the whole heap (tens of ms after 1,000 connections), which in steady traffic would
  /// stall everyone (load run e after d: ack p99 4 → 18–53 ms with a trim at every drain). So the
  /// first drain after a burst arms a one-shot check; while frames keep being queued the check
  /// comes back, each time twice as late (up to 4 s), so steady traffic costs a wake-up every few
  /// seconds. Without trims a burst (a thousand clients joining one room sends each of them a
  /// `peer` frame per join) leaves the process at its peak size.
  func trimHeapIfDrained() {
    guard nonEmptyQueues == 0, bytesQueuedSinceTrim >= Self.trimAfterBytes, !trimCheckArmed,
      let context = loop.context
    else { return }
    trimCheckArmed = true
    var framesAtArm = framesQueued
    var backoff = Self.trimQuietSeconds
    let timer = trimTimer ?? LWSTimer {}
    trimTimer = timer
    timer.action = { [unowned self, unowned timer] in
      guard !isShuttingDown else { return }
      guard framesQueued == framesAtArm, nonEmptyQueues == 0 else {
        framesAtArm = framesQueued
        backoff = min(Self.maxTrimBackoffSeconds, backoff * 2)
        timer.schedule(on: context, afterMicroseconds: Int(backoff * 1e6))
        return
      }
      trimCheckArmed = false
      bytesQueuedSinceTrim = 0
      heapTrims += 1
      _ = reorder_malloc_trim()
    }
    timer.schedule(on: context, afterMicroseconds: Int(backoff * 1e6))
  }

  /// How long a drained server must stay quiet before it trims its heap, and the longest wait
  /// between two checks under steady traffic.
  static let trimQuietSeconds = 0.25
  static let maxTrimBackoffSeconds = 4.0

  /// Queued bytes after which a drained server trims its heap (see `trimHeapIfDrained`).
  static let trimAfterBytes = 8 << 20
}
