/// One setting of `reorder serve`: its flag, what it takes, its help line, and how it reads and
/// writes its `ServerConfiguration` field. The default is the field's initial value, so the flags,
/// their environment variables (`REORDER_` + the name in capitals, `_` for `-`), `--help` and the
/// README's configuration table all follow from `ServerConfiguration` (a test holds the README to it).
public struct ServerSetting: Sendable {
  /// What a setting takes.
  public enum Kind: Sendable, Equatable {
    /// A switch (`--demo`).
    case flag
    /// Any string.
    case string
    /// A whole number in a range.
    case integer(ClosedRange<Int>)
    /// One of these words.
    case choice([String])
  }

  /// The flag without its dashes (`max-message-bytes`).
  public let name: String
  /// What it takes.
  public let kind: Kind
  /// One line for `--help`.
  public let help: String
  private let read: @Sendable (ServerConfiguration) -> String?
  private let write: @Sendable (inout ServerConfiguration, String) -> Void

  /// The embedded default as text (nil: unset; `false` for a switch that is off).
  public var defaultValue: String? { read(ServerConfiguration()) }

  /// The value of this setting in `configuration` as text.
  public func value(in configuration: ServerConfiguration) -> String? { read(configuration) }

  /// Sets the field from `text`, which the CLI has checked against `kind`.
  public func apply(_ text: String, to configuration: inout ServerConfiguration) { write(&configuration, text) }

  static func string(
    _ name: String, _ field: WritableKeyPath<ServerConfiguration, String> & Sendable, _ help: String
  ) -> Self {
    Self(name: name, kind: .string, help: help, read: { $0[keyPath: field] }, write: { $0[keyPath: field] = $1 })
  }

  static func optionalString(
    _ name: String, _ field: WritableKeyPath<ServerConfiguration, String?> & Sendable, _ help: String
  ) -> Self {
    Self(name: name, kind: .string, help: help, read: { $0[keyPath: field] }, write: { $0[keyPath: field] = $1 })
  }

  static func integer(
    _ name: String, _ field: WritableKeyPath<ServerConfiguration, Int> & Sendable, _ range: ClosedRange<Int>,
    _ help: String
  ) -> Self {
    Self(
      name: name, kind: .integer(range), help: help, read: { String($0[keyPath: field]) },
      write: { configuration, text in configuration[keyPath: field] = Int(text) ?? configuration[keyPath: field] })
  }

  static func flag(_ name: String, _ field: WritableKeyPath<ServerConfiguration, Bool> & Sendable, _ help: String)
    -> Self
  {
    Self(
      name: name, kind: .flag, help: help, read: { String($0[keyPath: field]) },
      write: { $0[keyPath: field] = $1 == "true" })
  }

  static func choice(
    _ name: String, _ field: WritableKeyPath<ServerConfiguration, String> & Sendable, _ words: [String],
    _ help: String
  ) -> Self {
    Self(name: name, kind: .choice(words), help: help, read: { $0[keyPath: field] }, write: { $0[keyPath: field] = $1 })
  }
}
