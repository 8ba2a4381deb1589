/// Several whole server-to-client websocket messages framed back to back in one buffer, so that
/// they leave in one `lws_write` (one `send`) instead of one write and one poll pass each.
///
/// A connection that is sent faster than it is written to (a burst of `applied` frames after a
/// group commit, a backlog after a slow reader caught up) has several frames queued when lws says
/// it is writable. lws frames one message per `lws_write`; the cork frames them itself (RFC 6455
/// §5.2: FIN, opcode, 7/16/64-bit length, no mask from a server) and hands the bytes to lws as
/// pre-framed raw data (`LWS_WRITE_RAW`), which lws sends, or buffers if the kernel takes part,
/// like any other write. Used only where lws adds nothing of its own to a frame: no extensions
/// (the server offers none) and not websocket-over-HTTP/2 (checked per connection).
///
/// One cork is reused for every write on the service thread (never shared across threads); its
/// memory grows to `limitBytes`.
final class FrameCork {
  /// Most bytes (headers included) one corked write carries; a frame that does not fit waits for
  /// the next write, and a frame larger than this alone goes out through `lws_write` as usual.
  let limitBytes: Int
  /// Most messages one corked write carries.
  let limitFrames: Int
  /// `LWS_PRE` bytes kept free in front of the framed bytes, as `lws_write` asks of every buffer.
  let headroom: Int
  private var storage: UnsafeMutableRawPointer
  private var capacity: Int
  /// Framed bytes so far and how many messages they hold.
  private(set) var count = 0
  private(set) var frames = 0

  init(limitBytes: Int = 32 * 1024, limitFrames: Int = 256, headroom: Int) {
    precondition(limitBytes > 0 && limitFrames > 0)
    self.limitBytes = limitBytes
    self.limitFrames = limitFrames
    self.headroom = headroom
    capacity = 4096
    storage = UnsafeMutableRawPointer.allocate(byteCount: headroom + capacity, alignment: 16)
  }

  deinit {
    storage.deallocate()
  }

  /// The websocket header length for a server frame of `payloadCount` bytes.
  static func headerCount(_ payloadCount: Int) -> Int {
    payloadCount < 126 ? 2 : payloadCount < 65_536 ? 4 : 10
  }

  /// Writes the header of a whole (FIN) server frame of `payloadCount` bytes at `out`
  /// (`headerCount(payloadCount)` bytes).
  static func writeHeader(_ out: UnsafeMutablePointer<UInt8>, payloadCount: Int, binary: Bool) {
    out[0] = 0x80 | (binary ? 0x2 : 0x1)
    switch headerCount(payloadCount) {
    case 2:
      out[1] = UInt8(payloadCount)
    case 4:
      out[1] = 126
      out[2] = UInt8(truncatingIfNeeded: payloadCount >> 8)
      out[3] = UInt8(truncatingIfNeeded: payloadCount)
    default:
      out[1] = 127
      for index in 0..<8 { out[2 + index] = UInt8(truncatingIfNeeded: payloadCount >> (56 - 8 * index)) }
    }
  }

  /// True when a message of `payloadCount` bytes still fits in this write.
  func fits(_ payloadCount: Int) -> Bool {
    frames < limitFrames && count + Self.headerCount(payloadCount) + payloadCount <= limitBytes
  }

  /// Appends one whole (FIN) message. The caller checked `fits`.
  /// - Complexity: O(payload count).
  func append(_ payload: UnsafeRawBufferPointer, binary: Bool) {
    let header = Self.headerCount(payload.count)
    reserve(count + header + payload.count)
    let out = (storage + headroom + count).assumingMemoryBound(to: UInt8.self)
    Self.writeHeader(out, payloadCount: payload.count, binary: binary)
    if let base = payload.baseAddress {
      (out + header).update(from: base.assumingMemoryBound(to: UInt8.self), count: payload.count)
    }
    count += header + payload.count
    frames += 1
  }

  /// The framed bytes, with `headroom` writable bytes before them.
  var bytes: UnsafeMutablePointer<UInt8> {
    (storage + headroom).assumingMemoryBound(to: UInt8.self)
  }

  /// Empties the cork for the next write (keeps its memory).
  func reset() {
    count = 0
    frames = 0
  }

  private func reserve(_ needed: Int) {
    guard needed > capacity else { return }
    var grown = capacity
    while grown < needed { grown *= 2 }
    let bigger = UnsafeMutableRawPointer.allocate(byteCount: headroom + grown, alignment: 16)
    bigger.copyMemory(from: storage, byteCount: headroom + count)
    storage.deallocate()
    storage = bigger
    capacity = grown
  }
}
