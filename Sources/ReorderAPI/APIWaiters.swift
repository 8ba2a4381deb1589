import ReorderRooms
import ReorderTransport

/// The API's `POST …/ops` requests waiting on the service thread for their room to load. The
/// driver owns one; service thread only.
public struct APIWaiters {
  /// A request's ops, in the order sent.
  public typealias Ops = [(id: String, intent: Result<Intent, ProtocolError>)]

  /// Requests by room, in arrival order, while the room loads.
  public var forLoad: [String: [(ops: Ops, responder: HTTPResponder)]] = [:]

  /// No request waiting.
  public init() {}
}
