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
    Log.info("stopped")
  }

  /// Service thread: starts the graceful close of every websocket.
  func beginShutdown(timeoutSeconds: Double) {
    guard !windDown.isShuttingDown else { return }
    windDown.isShuttingDown = true
    ticks.cancel()
    writes.trimmer.cancel()
    writes.slowReaders.cancel()
    keepalive.cancel()
    Log.info("shutting down", ["connections": String(connections.count)])
    for conn in connections.all where conn.pendingClose == nil {
      conn.pendingClose = .init(code: CloseCode.goingAway, reason: "server shutting down")
      lws_callback_on_writable(conn.wsi)
    }
    if connections.isEmpty {
      loop.requestStop()
      return
    }
    let timer = LWSTimer { [unowned self] in
      Log.warn("shutdown flush timed out", ["connections": String(connections.count)])
      loop.requestStop()  // lws_context_destroy closes whatever is left
    }
    windDown.shutdownTimer = timer
    timer.schedule(on: loop.context!, afterMilliseconds: max(1, Int(timeoutSeconds * 1000)))
  }

  /// Service thread only: one extra `transportTick()` after `seconds` (at the soonest on the next
  /// pass of the service loop). An extra tick already due sooner stands (and serves this request);
  /// a later one is moved earlier.
  public func requestTick(afterSeconds seconds: Double) {
    loop.assertServiceThread()
    guard !windDown.isShuttingDown, let context = loop.context else { return }
    ticks.request(afterMicroseconds: Int((max(0, seconds) * 1_000_000).rounded(.up)), on: context)
  }

  /// After a close told the others (`handler.connectionClosed`): lws closes connections from its
  /// timers too (idle and kill timeouts), which run before the service loop waits, so the end of
  /// that pass could be far off. A timer due at once flushes what the close sent: in the same round
  /// of timers when that is where the close came from, else (already flushed at the end of the
  /// pass) as a no-op at the next one. One timer for any number of closes.
  func flushSoonAfterClose() {
    guard writes.hasUnflushed, let context = loop.context else { return }
    let timer =
      closeFlushTimer
      ?? LWSTimer { [unowned self] in
        if writes.hasUnflushed { writes.flushSends() }
      }
    closeFlushTimer = timer
    if !timer.firesWithin(microseconds: 0) { timer.schedule(on: context, afterMicroseconds: 0) }
  }
}
