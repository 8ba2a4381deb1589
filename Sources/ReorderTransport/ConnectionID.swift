/// Identifies one websocket connection of a `WebSocketServer` (never reused while the server runs).
public struct ConnectionID: Hashable, Sendable, CustomStringConvertible {
  /// The number behind the id (increasing from 1).
  public let rawValue: UInt64

  /// Wraps a raw id.
  public init(rawValue: UInt64) { self.rawValue = rawValue }

  public var description: String { "c\(rawValue)" }
}

/// Called ONLY on the server's service thread.
public protocol WebSocketServerHandler: AnyObject {
  /// A websocket on `/ws/<room>` was accepted (room already percent-decoded and validated).
  func connectionOpened(_ connection: ConnectionID, room: String)
  /// One whole message (fragments reassembled, size limit enforced).
  func connectionReceived(_ connection: ConnectionID, message: [UInt8], isBinary: Bool)
  /// The connection is gone (any reason). No more sends to it.
  func connectionClosed(_ connection: ConnectionID)
  /// Periodic tick (see `TransportConfiguration.tickIntervalMilliseconds`).
  func transportTick()
  /// Extra fields merged into the `/healthz` JSON object (e.g. `rooms`).
  func healthFields() -> [String: Int]
}

/// How important an outgoing message is when its connection's queue fills up.
public enum SendPriority: Sendable {
  /// Never dropped; overflow closes the connection.
  case data
  /// Dropped (silently) while the connection's queue is more than half full.
  case presence
}
