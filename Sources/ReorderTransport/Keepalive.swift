import CLibWebSockets
import ReorderBasics

/// When a websocket is pinged and when it is dropped (`pingIntervalSeconds`,
/// `idleTimeoutSeconds`): a connection silent for `pingSeconds` — nothing received, no message,
/// ping or pong — is pinged once; one still silent `idleSeconds` after it was last heard is
/// dropped. Pure: time comes in.
struct KeepaliveRule: Equatable {
  let pingSeconds: Double
  let idleSeconds: Double

  /// What to do with a connection.
  enum Decision: Equatable {
    case none
    case ping
    case drop
  }

  /// The decision for a connection last heard at `lastHeard`, already pinged since or not.
  func decide(now: Double, lastHeard: Double, pinged: Bool) -> Decision {
    let silent = now - lastHeard
    if silent >= idleSeconds { return .drop }
    if silent >= pingSeconds && !pinged { return .ping }
    return .none
  }

  /// How often every connection is looked at: a quarter of the ping interval, at most a second,
  /// so a ping or a drop is at most that late.
  var sweepSeconds: Double { min(1, pingSeconds / 4) }
}

/// The keepalive of every websocket, by one sweep over them all per `KeepaliveRule.sweepSeconds`
/// on the service thread. lws 4.1.6's own keepalive (its retry policy's validity timers, off in
/// `WebSocketServer+Context`) keeps a timer per connection in one sorted list that every ping and
/// pong re-inserts into by walking it: its cost grows with the square of the connections, and
/// with ten thousand of them it took most of a node's CPU. The sweep is linear, and a received
/// frame costs a flag (`ServerConnection.heard`).
final class KeepaliveSweep {
  let rule: KeepaliveRule
  private var timer: LWSTimer?

  init(rule: KeepaliveRule) { self.rule = rule }

  /// Arms the sweep (once; it re-arms itself while there are connections).
  func arm(context: OpaquePointer?, sweep: @escaping () -> Void) {
    guard let context, timer?.firesAt == nil else { return }
    let timer = self.timer ?? LWSTimer(action: sweep)
    self.timer = timer
    timer.schedule(on: context, afterMicroseconds: Int(rule.sweepSeconds * 1e6))
  }

  /// Stops the sweep.
  func cancel() { timer?.cancel() }
}

extension WebSocketServer {
  /// Looks at every websocket: what was heard since the last sweep counts as heard now; a silent
  /// one is pinged (`websocketWritable` sends it), one silent for the idle timeout is dropped.
  func sweepKeepalive() {
    let now = MonotonicClock.now()
    for conn in connections.all where !conn.isClosed && !conn.closeStarted {
      if conn.heard {
        conn.heard = false
        conn.lastHeard = now
        conn.pinged = false
        continue
      }
      switch keepalive.rule.decide(now: now, lastHeard: conn.lastHeard, pinged: conn.pinged) {
      case .none: break
      case .ping:
        conn.pinged = true
        conn.pingDue = true
        lws_callback_on_writable(conn.wsi)
      case .drop:
        Log.info("websocket closed", ["connection": conn.id.description, "reason": "idle timeout"])
        conn.closeStarted = true
        lws_set_timeout(conn.wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
      }
    }
    if !connections.isEmpty, !windDown.isShuttingDown {
      keepalive.arm(context: loop.context) { [unowned self] in sweepKeepalive() }
    }
  }

  /// Sends the ping `sweepKeepalive` decided. Its payload is lws' clock in microseconds, in
  /// decimal digits: lws 4.1.6 passes no empty pong on (`LWS_CALLBACK_RECEIVE_PONG`), and with a
  /// binary payload it closed the load tool's clients (which send text frames between their
  /// pongs) with 1007 "bad utf8". False when lws failed the write.
  func writePing(_ conn: ServerConnection) -> Bool {
    conn.pingDue = false
    let pre = Int(reorder_lws_pre())
    let payload = Array(String(lws_now_usecs()).utf8)
    var frame = [UInt8](repeating: 0, count: pre) + payload
    let written = frame.withUnsafeMutableBufferPointer { buffer in
      lws_write(conn.wsi, buffer.baseAddress! + pre, payload.count, LWS_WRITE_PING)
    }
    return written >= 0
  }
}
