import CLibWebSockets
import Foundation
import ReorderBasics

/// How far a server has wound down. Service thread only.
struct WindDown {
  /// `shutdown` began: new sockets are refused, every websocket is closed with 1001, and the loop
  /// stops once the last one closed (or at `shutdownTimer`).
  var isShuttingDown = false
  /// Set by `drain`: new upgrades are refused with 503 while the open websockets are closed.
  var drain: Drain?
  /// Stops the loop when the shutdown's closes take too long.
  var shutdownTimer: LWSTimer?
}

/// A drain under way: the websockets open when it began, closed a batch per step.
final class Drain {
  /// Connections still to close, in the order they are closed.
  var pending: [ConnectionID]
  /// Connections it began with, and steps taken of `steps` (one every `drainStepMilliseconds`).
  let total: Int
  let steps: Int
  var stepsTaken = 0
  let timer: LWSTimer
  let completion: @Sendable () -> Void

  init(pending: [ConnectionID], steps: Int, timer: LWSTimer, completion: @escaping @Sendable () -> Void) {
    self.pending = pending
    self.total = pending.count
    self.steps = steps
    self.timer = timer
    self.completion = completion
  }
}

extension WebSocketServer {
  /// Milliseconds between two batches of a drain's closes.
  static let drainStepMilliseconds = 100

  /// Any thread: closes every open websocket with 1012 (service restart) and `reason`, spread
  /// evenly over `seconds` (a batch every 100 ms; all at once for 0), so that clients reconnect
  /// elsewhere in a trickle rather than all in the same second. From the start new upgrades are
  /// refused with 503 and `Retry-After`. `completion` runs (on the service thread) once the last
  /// batch is closed; the close frames are flushed as usual. Once only: a second call completes
  /// at once. The server keeps running: `shutdown()` stops it. On the service thread the drain
  /// has begun (upgrades refused, `isDraining`) when this returns.
  public func drain(overSeconds seconds: Double, reason: String, completion: @escaping @Sendable () -> Void) {
    if loop.isServiceThread {
      beginDrain(overSeconds: seconds, reason: reason, completion: completion)
    } else {
      loop.post { [self] in beginDrain(overSeconds: seconds, reason: reason, completion: completion) }
    }
  }

  /// Service thread: `drain(overSeconds:reason:completion:)`.
  private func beginDrain(overSeconds seconds: Double, reason: String, completion: @escaping @Sendable () -> Void) {
    guard windDown.drain == nil, !windDown.isShuttingDown, let context = loop.context else {
      completion()
      return
    }
    let steps = max(1, Int((max(0, seconds) * 1000 / Double(Self.drainStepMilliseconds)).rounded(.down)))
    let timer = LWSTimer { [unowned self] in drainStep(reason: reason) }
    windDown.drain = Drain(
      pending: connections.all.filter { $0.pendingClose == nil }.map(\.id), steps: steps, timer: timer,
      completion: completion)
    Log.info(
      "draining", ["connections": String(connections.count), "seconds": String(format: "%.1f", max(0, seconds))])
    if seconds <= 0 {
      drainStep(reason: reason)
    } else {
      timer.schedule(on: context, afterMilliseconds: Self.drainStepMilliseconds)
    }
  }

  /// Service thread: closes the next batch, so that after step k of n, k/n of the connections the
  /// drain began with have been closed (those that left by themselves count as closed).
  func drainStep(reason: String) {
    guard let drain = windDown.drain, let context = loop.context else { return }
    drain.stepsTaken += 1
    let due = (drain.total * drain.stepsTaken + drain.steps - 1) / drain.steps
    let batch = min(drain.pending.count, max(0, due - (drain.total - drain.pending.count)))
    for id in drain.pending.prefix(batch) { close(id, code: CloseCode.serviceRestart, reason: reason) }
    drain.pending.removeFirst(batch)
    drain.pending.removeAll { connections[$0] == nil }
    if drain.stepsTaken >= drain.steps { drain.pending.removeAll() }
    if drain.pending.isEmpty {
      Log.info("drained", [:])
      drain.completion()
    } else {
      drain.timer.schedule(on: context, afterMilliseconds: Self.drainStepMilliseconds)
    }
  }

  /// True once a drain has begun. Service thread only.
  public var isDraining: Bool { windDown.drain != nil }
}
