/// Identifies one websocket connection of a `WebSocketServer` (never reused while the server runs).
public struct ConnectionID: Hashable, Sendable, CustomStringConvertible {
  /// The number behind the id (increasing from 1).
  public let rawValue: UInt64

  /// Wraps a raw id.
  public init(rawValue: UInt64) { self.rawValue = rawValue }

  public var description: String { "c\(rawValue)" }
}

/// How important an outgoing message is when its connection's queue fills up.
public enum SendPriority: Sendable {
  /// Never dropped; overflow closes the connection.
  case data
  /// Dropped (silently) while the connection is busy (`BusyRule`: waiting for its socket with
  /// more than a few frames queued, or its queue over half full).
  case presence
}
