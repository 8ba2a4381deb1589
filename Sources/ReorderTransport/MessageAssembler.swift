/// Reassembles the partial frames lws hands over into whole messages, enforcing a maximum size.
///
/// A message is complete only when lws reports the final fragment AND no payload of the current
/// frame remains (`lws_is_final_fragment() && lws_remaining_packet_payload() == 0`).
struct MessageAssembler {
  /// What one chunk did to the message in progress.
  enum Outcome: Equatable {
    /// More chunks are needed.
    case incomplete
    /// A whole message (the assembler is reset).
    case complete([UInt8], isBinary: Bool)
    /// The message would exceed the limit; `bytes` is the size known so far (assembler reset).
    case tooLarge(bytes: Int)
  }

  /// The largest message accepted, in bytes.
  let maxBytes: Int
  private var buffer: [UInt8] = []
  private var isBinary = false
  private var inMessage = false

  init(maxBytes: Int) {
    self.maxBytes = maxBytes
  }

  /// Adds one chunk.
  /// - Parameters:
  ///   - chunk: the bytes lws delivered.
  ///   - isBinary: `lws_frame_is_binary()` (only read on the first chunk of a message).
  ///   - isFinalFragment: `lws_is_final_fragment()`.
  ///   - remainingInFrame: `lws_remaining_packet_payload()`.
  /// - Complexity: O(chunk.count) amortized.
  mutating func append(
    _ chunk: UnsafeRawBufferPointer, isBinary binary: Bool, isFinalFragment: Bool, remainingInFrame: Int
  ) -> Outcome {
    if !inMessage {
      let known = chunk.count + remainingInFrame
      if known > maxBytes { return .tooLarge(bytes: known) }
      // The common case, a whole message in one chunk: no intermediate buffer.
      if isFinalFragment && remainingInFrame == 0 { return .complete(Array(chunk), isBinary: binary) }
      inMessage = true
      isBinary = binary
    }
    let known = buffer.count + chunk.count + remainingInFrame
    if known > maxBytes {
      reset()
      return .tooLarge(bytes: known)
    }
    buffer.append(contentsOf: chunk)
    guard isFinalFragment && remainingInFrame == 0 else { return .incomplete }
    let message = buffer
    let wasBinary = isBinary
    buffer = []  // the message takes the storage; nothing is kept per idle connection
    inMessage = false
    return .complete(message, isBinary: wasBinary)
  }

  private mutating func reset() {
    inMessage = false
    buffer = []
  }
}
