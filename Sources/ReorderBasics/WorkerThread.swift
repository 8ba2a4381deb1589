import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// What a worker's loop does next, decided under its lock (`WorkerThread.start`'s `next`).
public enum WorkerStep<Work> {
  /// Nothing to do: sleep until woken (`update`, `stop`).
  case wait
  /// Nothing to do before `deadline` (seconds on `MonotonicClock.now()`): sleep until then, or
  /// until woken.
  case waitUntil(Double)
  /// Run `perform` with this outside the lock, then decide again.
  case run(Work)
  /// Run `perform` with this outside the lock, then end the thread (`join` returns).
  case finish(Work)
}

/// A named thread running one loop over a state guarded by the worker's lock: the one way a
/// background loop is written here (the cluster's Redis threads, `JobQueue`).
///
/// The loop asks `next` what to do, under the lock, with the state and whether `stop()` was
/// called; it sleeps while `next` says `.wait` (or `.waitUntil`), and runs `perform` outside the
/// lock with the work `next` took out of the state. Every change made through `update` wakes the
/// thread, and `next` sees it: the change and the wake happen under the lock the sleeping thread
/// checks its state under, so no wake-up is lost. `stop()` wakes it the same way; `next` then
/// decides what is left to do (`.finish`) and the thread ends after that `perform`.
///
/// `perform` may take the lock again (`withLock`, `update`) to read or change the state.
/// The thread holds the worker, and what `next` and `perform` capture, until it ends. Every wake is a broadcast: `join` and `pause` wait
/// on the same condition as the loop, and a signal could wake one of them instead.
public final class WorkerThread<State>: @unchecked Sendable {
  /// The thread's name (as `top -H` and a debugger show it).
  public let name: String
  private let niceness: Int32?
  private let condition = NSCondition()
  /// Guarded by `condition`, as are `stopping`, `started` and `ended`.
  private var state: State
  private var stopping = false
  private var started = false
  private var ended = false

  /// A worker over `state`, not started. `niceness`: the thread's nice value on Linux (per thread
  /// there), nil to keep the process's.
  public init(name: String, state: State, niceness: Int32? = nil) {
    self.name = name
    self.niceness = niceness
    self.state = state
  }

  /// Starts the thread's loop over `next` and `perform`, once: a later call does nothing. Any
  /// thread.
  public func start<Work>(
    next: @escaping @Sendable (inout State, _ stopping: Bool) -> WorkerStep<Work>,
    perform: @escaping @Sendable (Work) -> Void
  ) {
    condition.lock()
    let first = !started
    started = true
    condition.unlock()
    guard first else { return }
    let thread = Thread { [self] in run(next: next, perform: perform) }
    thread.name = name
    thread.start()
  }

  /// Whether `start()` was called.
  public var isStarted: Bool { withLock { _ in started } }

  /// Runs `body` on the state under the lock, then wakes the thread. Any thread.
  @discardableResult
  public func update<T>(_ body: (inout State) throws -> T) rethrows -> T {
    condition.lock()
    defer {
      condition.broadcast()
      condition.unlock()
    }
    return try body(&state)
  }

  /// Runs `body` on the state under the lock, and wakes the thread when `body` sets its second
  /// argument (a change the loop must see only sometimes: a room that became due). Any thread.
  @discardableResult
  public func update<T>(waking body: (inout State, _ wake: inout Bool) throws -> T) rethrows -> T {
    condition.lock()
    var wake = false
    defer {
      if wake { condition.broadcast() }
      condition.unlock()
    }
    return try body(&state, &wake)
  }

  /// Runs `body` on the state under the lock, without waking the thread (a read, or a change
  /// the loop need not see before it wakes for another reason). Any thread.
  public func withLock<T>(_ body: (inout State) throws -> T) rethrows -> T {
    condition.lock()
    defer { condition.unlock() }
    return try body(&state)
  }

  /// Asks the thread to end: it wakes and `next` sees `stopping`. Returns at once. Any thread.
  public func stop() {
    condition.lock()
    stopping = true
    condition.broadcast()
    condition.unlock()
  }

  /// Whether `stop()` was called.
  public var isStopping: Bool {
    condition.lock()
    defer { condition.unlock() }
    return stopping
  }

  /// Waits until the thread has ended (at once when it never started). Not on the worker's own
  /// thread.
  public func join() {
    condition.lock()
    defer { condition.unlock() }
    while started && !ended { condition.wait() }
  }

  /// Waits until the thread has ended, at most `timeoutSeconds`; true when it has (or never
  /// started). Not on the worker's own thread.
  @discardableResult
  public func join(timeoutSeconds: Double) -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeoutSeconds)
    condition.lock()
    defer { condition.unlock() }
    while started && !ended {
      if !condition.wait(until: deadline) { return ended }
    }
    return true
  }

  /// On the worker's thread, in `perform`: sleeps `seconds`, or less when `stop()` is called
  /// (a retry's backoff that must not hold up a stop). Returns false when stopping.
  @discardableResult
  public func pause(seconds: Double) -> Bool {
    let deadline = Date(timeIntervalSinceNow: seconds)
    condition.lock()
    defer { condition.unlock() }
    while !stopping {
      if !condition.wait(until: deadline) { break }
    }
    return !stopping
  }

  private func run<Work>(
    next: (inout State, _ stopping: Bool) -> WorkerStep<Work>, perform: (Work) -> Void
  ) {
    #if os(Linux)
      // The kernel's name of the thread (`top -H`, /proc/…/comm: at most 15 bytes), set here by
      // the thread itself: Foundation's `Thread.name` does not reach it reliably.
      _ = setThreadName(pthread_self(), String(name.utf8.prefix(15))!)
      // who 0 is the calling thread: on Linux the nice value is per thread.
      if let niceness { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness) }
    #endif
    while true {
      condition.lock()
      var step = next(&state, stopping)
      while true {
        if case .wait = step {
          condition.wait()
        } else if case .waitUntil(let deadline) = step {
          let left = deadline - MonotonicClock.now()
          if left > 0 { _ = condition.wait(until: Date(timeIntervalSinceNow: left)) }
        } else {
          break
        }
        step = next(&state, stopping)
      }
      condition.unlock()
      switch step {
      case .run(let work):
        perform(work)
      case .finish(let work):
        perform(work)
        condition.lock()
        ended = true
        condition.broadcast()
        condition.unlock()
        return
      case .wait, .waitUntil:
        preconditionFailure("the loop runs only .run and .finish")
      }
    }
  }
}

#if os(Linux)
  /// glibc's `pthread_setname_np` (declared only under `_GNU_SOURCE`, so not imported).
  @_silgen_name("pthread_setname_np")
  private func setThreadName(_ thread: pthread_t, _ name: UnsafePointer<CChar>) -> Int32
#endif
