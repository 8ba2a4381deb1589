import CLibWebSockets

/// A one-shot timer that calls a Swift closure on the service thread: an lws timer
/// (`lws_sul_schedule`) on lws' poll loop, a libev timer of its own when the context runs on our
/// libev loop (`reorder_ev_timer`: lws 4.1.6 would fire a sul due before its next one late there).
///
/// The C `lws_sorted_usec_list_t` is followed in the same allocation by an unretained pointer back
/// to this object, which the non-capturing C callback reads to find it. Service thread only; the
/// memory is freed in `deinit`, after the context that may reference it has been destroyed (or
/// after `cancel()`).
final class LWSTimer {
  private let block: UnsafeMutableRawPointer
  /// The libev timer and the loop it is on, once scheduled on a libev loop.
  private var libevTimer: UnsafeMutablePointer<reorder_ev_timer>?
  private var libevLoop: LibevLoop?
  /// What firing does (replaceable, for a timer re-armed with new state).
  var action: () -> Void

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
    schedule(on: context, afterMicroseconds: milliseconds * 1000)
  }

  /// (Re)arms the timer to fire once after `microseconds`.
  func schedule(on context: OpaquePointer, afterMicroseconds microseconds: Int) {
    let delay = lws_usec_t(max(0, microseconds))
    firesAt = lws_now_usecs() + delay
    if let loop = libevLoop ?? ServiceLoop.libevLoop(of: context) {
      if libevTimer == nil {
        libevTimer = reorder_ev_timer_new(libevTimerCallback, Unmanaged.passUnretained(self).toOpaque())
        libevLoop = loop
      }
      if let libevTimer, loop.isAlive {
        reorder_ev_timer_arm(loop.loop, libevTimer, Double(delay) / 1e6)
        return
      }
    }
    let sul = block.assumingMemoryBound(to: lws_sorted_usec_list_t.self)
    lws_sul_schedule(context, 0, sul, timerCallback, delay)
  }

  /// When the timer fires, on lws' clock (`lws_now_usecs`, microseconds); nil when not armed.
  private(set) var firesAt: lws_usec_t?

  /// Whether the timer is armed to fire within `microseconds` from now.
  func firesWithin(microseconds: Int) -> Bool {
    guard let firesAt else { return false }
    return firesAt <= lws_now_usecs() + lws_usec_t(microseconds)
  }

  /// Disarms the timer (no-op when not armed).
  func cancel() {
    firesAt = nil
    lws_sul_cancel(block.assumingMemoryBound(to: lws_sorted_usec_list_t.self))
    if let libevTimer, let libevLoop, libevLoop.isAlive { reorder_ev_timer_cancel(libevLoop.loop, libevTimer) }
  }

  fileprivate func fire() {
    firesAt = nil
    action()
  }

  deinit {
    if let libevTimer {
      // A running loop must drop the watcher before its memory is freed; a destroyed loop holds none.
      if let libevLoop, libevLoop.isAlive { reorder_ev_timer_cancel(libevLoop.loop, libevTimer) }
      free(libevTimer)
    }
    block.deallocate()
  }
}

private let libevTimerCallback: @convention(c) (UnsafeMutableRawPointer?) -> Void = { owner in
  guard let owner else { return }
  Unmanaged<LWSTimer>.fromOpaque(owner).takeUnretainedValue().fire()
}

private let timerCallback: @convention(c) (UnsafeMutablePointer<lws_sorted_usec_list_t>?) -> Void = { sul in
  guard let sul else { return }
  let owner = UnsafeMutableRawPointer(sul).load(
    fromByteOffset: MemoryLayout<lws_sorted_usec_list_t>.stride, as: UnsafeMutableRawPointer.self)
  Unmanaged<LWSTimer>.fromOpaque(owner).takeUnretainedValue().fire()
}
