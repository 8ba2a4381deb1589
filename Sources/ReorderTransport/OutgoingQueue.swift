/// The bounded queue of frames waiting to be written to one connection.
///
/// Each frame is a `FrameBuffer`: `headroom` bytes in front of its payload, so `lws_write` can put
/// the websocket header there without a copy (`LWS_PRE`); a broadcast shares one buffer. The bound
/// is in payload bytes: a frame that would overflow it is refused (a single frame larger than the
/// bound is still accepted into an empty queue). Whether presence is sent at all is the
/// connection's decision (`BusyRule`), not the queue's.
struct OutgoingQueue {
  /// What a frame is on the wire.
  enum Kind: Equatable {
    case text
    case binary
    case continuation
  }

  /// One frame of a message.
  struct Frame {
    let buffer: FrameBuffer
    let kind: Kind
    let isFinal: Bool
    let isFirst: Bool
    var payloadCount: Int { buffer.count }
    /// A whole message in one frame (not part of a fragmented one).
    var isWhole: Bool { isFirst && isFinal && kind != .continuation }
  }

  /// What `enqueue` did.
  enum EnqueueResult: Equatable {
    case queued
    /// A presence frame dropped because its connection is busy (decided by the caller).
    case dropped
    /// Data that would exceed the bound: the connection must be closed.
    case overflow
  }

  let limitBytes: Int
  let headroom: Int
  /// Frames from `head` on are queued; the slots before it are emptied (nil) and compacted away.
  private var frames: [Frame?] = []
  private var head = 0
  /// Payload bytes queued.
  private(set) var bytes = 0

  init(limitBytes: Int, headroom: Int) {
    self.limitBytes = limitBytes
    self.headroom = headroom
  }

  var isEmpty: Bool { head == frames.count }
  var count: Int { frames.count - head }

  /// Queues one frame, copying `payload` into a buffer of its own.
  /// - Complexity: O(payload.count).
  mutating func enqueue(
    _ payload: some Collection<UInt8>, kind: Kind = .text, isFirst: Bool = true, isFinal: Bool = true
  ) -> EnqueueResult {
    if overflows(payload.count) { return .overflow }
    return enqueue(FrameBuffer(payload, headroom: headroom), kind: kind, isFirst: isFirst, isFinal: isFinal)
  }

  /// Queues a frame whose buffer may be shared with other queues (server broadcast).
  /// - Complexity: O(1) amortized.
  mutating func enqueue(shared buffer: FrameBuffer, kind: Kind = .text) -> EnqueueResult {
    precondition(buffer.headroom == headroom, "buffer headroom must match the queue's")
    if overflows(buffer.count) { return .overflow }
    return enqueue(buffer, kind: kind, isFirst: true, isFinal: true)
  }

  private func overflows(_ count: Int) -> Bool { bytes > 0 && bytes + count > limitBytes }

  /// Appends one frame, unchecked against the bound (the callers check it).
  mutating func enqueue(_ buffer: FrameBuffer, kind: Kind, isFirst: Bool, isFinal: Bool) -> EnqueueResult {
    frames.append(Frame(buffer: buffer, kind: kind, isFinal: isFinal, isFirst: isFirst))
    bytes += buffer.count
    return .queued
  }

  /// The frame `offset` places after the oldest (0: the oldest), without removing it.
  func peek(_ offset: Int = 0) -> Frame? {
    head + offset < frames.count ? frames[head + offset] : nil
  }

  /// Removes and returns the oldest frame.
  /// - Complexity: O(1) amortized.
  mutating func dequeue() -> Frame? {
    guard head < frames.count else { return nil }
    guard let frame = frames[head] else { preconditionFailure("queued slot already emptied") }
    frames[head] = nil
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
