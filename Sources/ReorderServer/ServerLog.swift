import ReorderBasics
import ReorderRooms

/// The rooms' log actions, written through the process-wide `Log`.
enum ServerLog {
  static func level(_ level: LogLevel) -> Log.Level {
    switch level {
    case .debug: return .debug
    case .info: return .info
    case .warn: return .warn
    case .error: return .error
    }
  }

  static func log(_ level: LogLevel, _ event: String, _ fields: [(String, String)]) {
    Log.log(Self.level(level), event, fields)
  }
}
