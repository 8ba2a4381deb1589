import CLibWebSockets
import ReorderBasics

/// libwebsockets' own warnings and errors, routed into `Log` (tagged `lws=true`).
enum LibWebSocketsLog {
  /// Installs the emitter (idempotent).
  static func install() {
    lws_set_log_level(Int32(LLL_ERR | LLL_WARN)) { level, line in
      guard let line else { return }
      var text = String(cString: line)
      while text.last == "\n" || text.last == "\r" { text.removeLast() }
      Log.log(level & Int32(LLL_ERR) != 0 ? .error : .warn, text, ["lws": "true"])
    }
  }
}
