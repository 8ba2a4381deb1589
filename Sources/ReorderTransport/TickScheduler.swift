import CLibWebSockets

/// Decides when the one pending extra tick fires: a tick already due sooner (or as soon) serves a
/// later request; an earlier request moves it. Pure: times are microseconds on any clock.
struct TickDeadline: Equatable {
  /// When the pending tick fires; nil when none is pending.
  private(set) var dueAt: Int64?

  /// A tick is asked for at `time`: true when the timer must be (re)armed for it.
  mutating func request(at time: Int64) -> Bool {
    if let dueAt, dueAt <= time { return false }
    dueAt = time
    return true
  }

  /// The pending tick fired (or was cancelled).
  mutating func clear() { dueAt = nil }
}

/// The extra ticks the handler asks for (`WebSocketServer.requestTick(afterSeconds:)`), on one
/// lws timer. Service thread only.
final class TickScheduler {
  private var deadline = TickDeadline()
  private var timer: LWSTimer?
  private let fire: () -> Void

  /// `fire` runs on the service thread when a tick is due.
  init(fire: @escaping () -> Void) {
    self.fire = fire
  }

  /// One tick after `microseconds` (a pending one due sooner stands).
  func request(afterMicroseconds microseconds: Int, on context: OpaquePointer) {
    let now = Int64(lws_now_usecs())
    guard deadline.request(at: now + Int64(max(0, microseconds))) else { return }
    let timer =
      self.timer
      ?? LWSTimer { [unowned self] in
        deadline.clear()
        fire()
      }
    self.timer = timer
    timer.schedule(on: context, afterMicroseconds: microseconds)
  }

  /// Drops the pending tick.
  func cancel() {
    deadline.clear()
    timer?.cancel()
  }
}
