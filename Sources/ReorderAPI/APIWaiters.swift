import ReorderRooms
import ReorderTransport

/// API writes waiting on the service thread for their room to load. The driver owns one; service
/// thread only.
public struct APIWaiters {
  /// A write that runs once its room is loaded.
  public enum Write {
    case create(BoardContent, replace: Bool)
    case delete
    case ops([(id: String, intent: Result<Intent, ProtocolError>)])
  }

  /// Writes by room, in arrival order, while the room loads.
  public var forLoad: [String: [(write: Write, responder: HTTPResponder)]] = [:]

  /// No write waiting.
  public init() {}
}
