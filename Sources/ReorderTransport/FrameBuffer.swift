/// One outgoing payload with `LWS_PRE` bytes of headroom in front, in memory of its own.
///
/// `lws_write` writes the websocket header into the headroom and, on the server, never touches the
/// payload; a partial write is copied into lws' own buffer. So on the (single) service thread one
/// buffer can be queued to many server connections at once: a broadcast copies the message once.
/// Client frames are masked in place by lws, so a client buffer is never shared.
final class FrameBuffer {
  /// Start of the headroom; the payload starts at `payload`.
  private let base: UnsafeMutableRawPointer
  let headroom: Int
  /// Payload bytes.
  let count: Int

  /// Copies `bytes` after `headroom` zero bytes.
  /// - Complexity: O(bytes.count).
  init(_ bytes: some Collection<UInt8>, headroom: Int) {
    self.headroom = headroom
    count = bytes.count
    base = UnsafeMutableRawPointer.allocate(byteCount: max(1, headroom + count), alignment: 16)
    base.initializeMemory(as: UInt8.self, repeating: 0, count: headroom)
    let payload = UnsafeMutableRawBufferPointer(start: base + headroom, count: count)
    payload.copyBytes(from: bytes)
  }

  /// The payload (with `headroom` writable bytes before it).
  var payload: UnsafeMutablePointer<UInt8> {
    (base + headroom).assumingMemoryBound(to: UInt8.self)
  }

  /// A copy of the payload (tests).
  var bytes: [UInt8] { Array(UnsafeBufferPointer(start: payload, count: count)) }

  deinit {
    base.deallocate()
  }
}
