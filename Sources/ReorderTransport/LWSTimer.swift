import CLibWebSockets

/// A one-shot lws timer (`lws_sul_schedule`) that calls a Swift closure on the service thread.
///
/// The C `lws_sorted_usec_list_t` is followed in the same allocation by an unretained pointer back
/// to this object, which the non-capturing C callback reads to find it. Service thread only; the
/// memory is freed in `deinit`, after the context that may reference it has been destroyed (or
/// after `cancel()`).
final class LWSTimer {
  private let block: UnsafeMutableRawPointer
  private let action: () -> Void

  init(action: @escaping () -> Void) {
    self.action = action
    let suls = MemoryLayout<lws_sorted_usec_list_t>.stride
    block = UnsafeMutableRawPointer.allocate(
      byteCount: suls + MemoryLayout<UnsafeMutableRawPointer>.stride,
      alignment: max(MemoryLayout<lws_sorted_usec_list_t>.alignment, MemoryLayout<UnsafeMutableRawPointer>.alignment))
    block.initializeMemory(as: UInt8.self, repeating: 0, count: suls)
    block.storeBytes(
      of: Unmanaged.passUnretained(self).toOpaque(), toByteOffset: suls, as: UnsafeMutableRawPointer.self)
  }

  /// (Re)arms the timer to fire once after `milliseconds`.
  func schedule(on context: OpaquePointer, afterMilliseconds milliseconds: Int) {
    let sul = block.assumingMemoryBound(to: lws_sorted_usec_list_t.self)
    lws_sul_schedule(context, 0, sul, timerCallback, lws_usec_t(milliseconds) * 1000)
  }

  /// Disarms the timer (no-op when not armed).
  func cancel() {
    lws_sul_cancel(block.assumingMemoryBound(to: lws_sorted_usec_list_t.self))
  }

  fileprivate func fire() { action() }

  deinit {
    block.deallocate()
  }
}

private let timerCallback: @convention(c) (UnsafeMutablePointer<lws_sorted_usec_list_t>?) -> Void = { sul in
  guard let sul else { return }
  let owner = UnsafeMutableRawPointer(sul).load(
    fromByteOffset: MemoryLayout<lws_sorted_usec_list_t>.stride, as: UnsafeMutableRawPointer.self)
  Unmanaged<LWSTimer>.fromOpaque(owner).takeUnretainedValue().fire()
}
