import ReorderRooms
import ReorderTransport

/// API writes waiting on the service thread: for their room to load, or for their ops to be
/// durable. The driver owns one; service thread only (the closures answer through an
/// `HTTPResponder`, which may be called from any thread, but run here).
public struct APIWaiters {
  /// A write that runs once its room is loaded.
  public enum Write {
    case create(BoardContent, replace: Bool)
    case delete
    case ops([(id: String, intent: Result<Intent, ProtocolError>)])
  }

  /// An answer that waits until the room's history `epoch` is durable up to `seq`; `done` gets
  /// nil then, or the reason it never will be (a failed append, the room dropped or replaced).
  public struct Durable {
    /// The history it waits in.
    public var epoch: String
    /// The seq that must be durable.
    public var seq: UInt64
    /// Called once: nil when durable, else why it never will be.
    public var done: (String?) -> Void

    /// An answer waiting for `epoch` to be durable up to `seq`.
    public init(epoch: String, seq: UInt64, done: @escaping (String?) -> Void) {
      self.epoch = epoch
      self.seq = seq
      self.done = done
    }
  }

  /// Writes by room, in arrival order, while the room loads.
  public var forLoad: [String: [(write: Write, responder: HTTPResponder)]] = [:]
  /// Answers by room, in seq order within an epoch.
  public var forDurable: [String: [Durable]] = [:]

  /// No write waiting.
  public init() {}

  /// Takes the answers of `room` that `epoch` up to `seq` releases.
  public mutating func takeDurable(room: String, epoch: String, upTo seq: UInt64) -> [Durable] {
    guard let waiting = forDurable[room] else { return [] }
    let (due, rest) = (
      waiting.filter { $0.epoch == epoch && $0.seq <= seq }, waiting.filter { $0.epoch != epoch || $0.seq > seq }
    )
    forDurable[room] = rest.isEmpty ? nil : rest
    return due
  }

  /// Takes every answer of `room` (its history failed or was replaced).
  public mutating func takeAll(room: String, except epoch: String? = nil) -> [Durable] {
    guard let waiting = forDurable[room] else { return [] }
    let kept = waiting.filter { $0.epoch == epoch }
    forDurable[room] = kept.isEmpty ? nil : kept
    return waiting.filter { $0.epoch != epoch }
  }
}
