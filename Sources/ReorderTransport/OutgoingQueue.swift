/// The bounded queue of frames waiting to be written to one connection.
///
/// Each frame is stored with `headroom` zero bytes in front of its payload, so `lws_write` can put
/// the websocket header there without a copy (`LWS_PRE`). The bound is in payload bytes; presence
/// frames are refused once the queue is more than half full, data frames when it would overflow
/// (a single frame larger than the bound is still accepted into an empty queue).
struct OutgoingQueue {
  /// What a frame is on the wire.
  enum Kind: Equatable {
    case text
    case binary
    case continuation
  }

  /// One frame: `storage` is `headroom` bytes then the payload.
  struct Frame {
    var storage: [UInt8]
    let kind: Kind
    let isFinal: Bool
    let isFirst: Bool
    var payloadCount: Int { storage.count - headroom }
    let headroom: Int
  }

  /// What `enqueue` did.
  enum EnqueueResult: Equatable {
    case queued
    /// A presence frame dropped because the queue is over half full.
    case dropped
    /// Data that would exceed the bound: the connection must be closed.
    case overflow
  }

  let limitBytes: Int
  let headroom: Int
  private var frames: [Frame] = []
  private var head = 0
  /// Payload bytes queued.
  private(set) var bytes = 0

  init(limitBytes: Int, headroom: Int) {
    self.limitBytes = limitBytes
    self.headroom = headroom
  }

  var isEmpty: Bool { head == frames.count }
  var count: Int { frames.count - head }

  /// Queues one frame.
  /// - Complexity: O(payload.count).
  mutating func enqueue(
    _ payload: some Collection<UInt8>, kind: Kind = .text, isFirst: Bool = true, isFinal: Bool = true,
    priority: SendPriority = .data
  ) -> EnqueueResult {
    if priority == .presence && bytes * 2 > limitBytes { return .dropped }
    if bytes > 0 && bytes + payload.count > limitBytes { return .overflow }
    var storage = [UInt8](repeating: 0, count: headroom)
    storage.reserveCapacity(headroom + payload.count)
    storage.append(contentsOf: payload)
    frames.append(Frame(storage: storage, kind: kind, isFinal: isFinal, isFirst: isFirst, headroom: headroom))
    bytes += payload.count
    return .queued
  }

  /// Removes and returns the oldest frame.
  /// - Complexity: O(1) amortized.
  mutating func dequeue() -> Frame? {
    guard head < frames.count else { return nil }
    let frame = frames[head]
    frames[head].storage = []
    head += 1
    bytes -= frame.payloadCount
    if head == frames.count {
      frames.removeAll(keepingCapacity: frames.capacity <= 64)
      head = 0
    } else if head >= 1024 && head * 2 >= frames.count {
      frames.removeFirst(head)
      head = 0
    }
    return frame
  }

  /// Drops everything queued.
  mutating func removeAll() {
    frames.removeAll()
    head = 0
    bytes = 0
  }
}
