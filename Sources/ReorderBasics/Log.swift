import Foundation

/// The process-wide logger every module writes through: one line per notable event.
///
/// Lines go to standard error, one per event, as `text` (`2026-01-01T12:00:00Z info message key=value`)
/// or `json` (`{"ts":"…","level":"info","msg":"…","key":"value"}`). The transport routes
/// libwebsockets' own warnings and errors here too, tagged `lws=true`.
public enum Log {
  /// Severity of a line; a line is written when its level is at or above the configured one.
  public enum Level: Int, Sendable, Comparable, CaseIterable {
    case debug = 0
    case info = 1
    case warn = 2
    case error = 3

    /// Parses `debug`, `info`, `warn`/`warning`, `error`; nil for anything else.
    public init?(name: String) {
      switch name.lowercased() {
      case "debug": self = .debug
      case "info": self = .info
      case "warn", "warning": self = .warn
      case "error": self = .error
      default: return nil
      }
    }

    /// The lowercase name used in log lines.
    public var name: String {
      switch self {
      case .debug: "debug"
      case .info: "info"
      case .warn: "warn"
      case .error: "error"
      }
    }

    public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
  }

  /// How a line is written.
  public enum Format: String, Sendable {
    case text
    case json
  }

  /// Sets the minimum level and the line format. Safe to call from any thread, at any time.
  public static func configure(level: Level, format: Format) {
    state.withLock {
      $0.level = level
      $0.format = format
    }
  }

  /// True when a line at `level` would be written (use it to skip building expensive messages).
  public static func isEnabled(_ level: Level) -> Bool {
    state.withLock { $0.level <= level }
  }

  /// Writes one line at `level` with key/value pairs (a later pair of the same key wins).
  public static func log(_ level: Level, _ message: String, _ pairs: [(String, String)]) {
    guard isEnabled(level) else { return }
    var fields: [String: String] = [:]
    for (key, value) in pairs { fields[key] = value }
    log(level, message, fields)
  }

  /// Writes one line at `level` with optional key/value fields (keys in sorted order).
  public static func log(_ level: Level, _ message: String, _ fields: [String: String] = [:]) {
    let (minimum, format) = state.withLock { ($0.level, $0.format) }
    guard level >= minimum else { return }
    let line = render(level: level, message: message, fields: fields, format: format, date: Date())
    state.withLock { _ in
      FileHandle.standardError.write(Data((line + "\n").utf8))
    }
  }

  /// Logs at `debug`.
  public static func debug(_ message: String, _ fields: [String: String] = [:]) { log(.debug, message, fields) }
  /// Logs at `info`.
  public static func info(_ message: String, _ fields: [String: String] = [:]) { log(.info, message, fields) }
  /// Logs at `warn`.
  public static func warn(_ message: String, _ fields: [String: String] = [:]) { log(.warn, message, fields) }
  /// Logs at `error`.
  public static func error(_ message: String, _ fields: [String: String] = [:]) { log(.error, message, fields) }

  /// Renders one line (exposed for tests of the format).
  public static func render(level: Level, message: String, fields: [String: String], format: Format, date: Date)
    -> String
  {
    let timestamp = date.formatted(.iso8601)
    switch format {
    case .text:
      var line = "\(timestamp) \(level.name) \(message)"
      for key in fields.keys.sorted() {
        let value = fields[key]!
        let plain = !value.isEmpty && !value.contains { $0 == " " || $0 == "\"" || $0 == "=" || $0.isNewline }
        line += " \(key)=" + (plain ? value : jsonString(value))
      }
      return line
    case .json:
      var line = "{\"ts\":\(jsonString(timestamp)),\"level\":\(jsonString(level.name)),\"msg\":\(jsonString(message))"
      for key in fields.keys.sorted() {
        line += ",\(jsonString(key)):\(jsonString(fields[key]!))"
      }
      return line + "}"
    }
  }

  /// Encodes `text` as a JSON string literal.
  public static func jsonString(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case _ where scalar.value < 0x20:
        out +=
          "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
          + String(scalar.value, radix: 16)
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out + "\""
  }

  private struct State {
    var level: Level = .info
    var format: Format = .text
  }

  private static let state = LogState(State())
}

/// The logger's settings behind a lock.
private final class LogState<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value

  init(_ value: Value) { self.value = value }

  func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
