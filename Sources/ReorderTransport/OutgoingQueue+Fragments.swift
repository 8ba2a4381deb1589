extension OutgoingQueue {
  /// Messages longer than this go out as websocket fragments of at most this many payload bytes,
  /// one per write (`WriteScheduler` writes one fragment per writeable callback). A `welcome` of a
  /// board of 10,000 items is about 500 KB: written whole, one `send()` on the service thread
  /// carries all of it (on loopback the kernel runs the receiver's side of TCP in that call too),
  /// and every other connection waits for it; in fragments the loop serves the others between two.
  /// The size is one `send()` (`WriteScheduler.maxSendBytes`).
  static let fragmentBytes = WriteScheduler.maxSendBytes

  /// Queues one text message, as one frame when it fits in `pieceBytes` and otherwise as
  /// fragments of `pieceBytes` (a text frame, continuations, the last one final). The bound is
  /// checked once for the whole message, as for one frame: a message larger than the bound still
  /// goes into an empty queue. Returns the result and how many frames were queued.
  /// - Complexity: O(payload.count).
  mutating func enqueue(fragmenting payload: [UInt8], pieceBytes: Int = fragmentBytes) -> (
    result: EnqueueResult, frames: Int
  ) {
    precondition(pieceBytes > 0, "fragments must hold at least one byte")
    guard payload.count > pieceBytes else {
      let result = enqueue(payload)
      return (result, result == .queued ? 1 : 0)
    }
    if bytes > 0 && bytes + payload.count > limitBytes { return (.overflow, 0) }
    var start = 0
    var frames = 0
    while start < payload.count {
      let end = min(payload.count, start + pieceBytes)
      _ = enqueue(
        FrameBuffer(payload[start..<end], headroom: headroom), kind: start == 0 ? .text : .continuation,
        isFirst: start == 0, isFinal: end == payload.count)
      frames += 1
      start = end
    }
    return (.queued, frames)
  }
}
