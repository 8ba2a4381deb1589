import ReorderRooms
import ReorderTransport

/// One log line per notable event, through the process-wide `TransportLog` (text or JSON lines,
/// level filtered), so the server and the transport write the same format.
enum ServerLog {
  static func level(_ level: LogLevel) -> TransportLog.Level {
    switch level {
    case .debug: return .debug
    case .info: return .info
    case .warn: return .warn
    case .error: return .error
    }
  }

  static func log(_ level: LogLevel, _ event: String, _ fields: [(String, String)]) {
    let transportLevel = Self.level(level)
    guard TransportLog.isEnabled(transportLevel) else { return }
    var dictionary: [String: String] = [:]
    for (key, value) in fields { dictionary[key] = value }
    TransportLog.log(transportLevel, event, dictionary)
  }
}
