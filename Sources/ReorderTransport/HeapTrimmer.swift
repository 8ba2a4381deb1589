import CLibWebSockets

/// Runs `HeapTrimPolicy` on the service loop: its quiet checks on an lws timer, its trims with
/// `malloc_trim`. Service thread only.
final class HeapTrimmer {
  private var policy = HeapTrimPolicy()
  private var timer: LWSTimer?
  /// How many times the heap was trimmed.
  private(set) var trims = 0
  /// Whether every queue is empty right now (asked at each check).
  private let allDrained: () -> Bool
  private let context: () -> OpaquePointer?

  init(allDrained: @escaping () -> Bool, context: @escaping () -> OpaquePointer?) {
    self.allDrained = allDrained
    self.context = context
  }

  /// A frame of `bytes` was queued.
  func queued(bytes: Int) { policy.queued(bytes: bytes) }

  /// A queue drained.
  func drained() {
    guard let delay = policy.drained(allDrained: allDrained()), let context = context() else { return }
    let timer = self.timer ?? LWSTimer {}
    self.timer = timer
    timer.action = { [unowned self] in check() }
    timer.schedule(on: context, afterMicroseconds: Int(delay * 1e6))
  }

  /// Stops checking (shutdown).
  func cancel() { timer?.cancel() }

  private func check() {
    switch policy.check(allDrained: allDrained()) {
    case .trim:
      trims += 1
      _ = reorder_malloc_trim()
    case .recheck(let seconds):
      guard let context = context() else { return }
      timer?.schedule(on: context, afterMicroseconds: Int(seconds * 1e6))
    }
  }
}
