import Foundation

/// A serial queue on a thread of its own that runs below the service thread: room loads (reading,
/// decoding and encoding a whole board), reads and frees are work that may wait, and on a machine
/// with few cores it must not take the CPU from the thread that relays everyone's drags.
///
/// The thread runs at nice 10 and, where the process may lift a thread out of it again (root,
/// `CAP_SYS_NICE`, or `RLIMIT_NICE` of at least 10: see `idleClassAllowed`), in the idle
/// scheduling class (`SCHED_IDLE`): a running nice-10 thread keeps its core for the rest of its
/// slice when a nice-0 thread wakes, an idle-class one yields at once. But an idle-class thread gets
/// almost no CPU while every core is busy (weight 3 against a nice-0 thread's 1,024), and members
/// wait for their room's load, so a guard thread watches the queue: once the job at its head has
/// been outstanding (queued or running) for `starvationBound`, the queue's thread leaves the idle
/// class (nice 10: about a tenth of a busy core) until its queue is empty. Without the privilege
/// the thread stays at nice 10. Dedicated threads, since the class and nice are per thread on Linux
/// and a pool thread would carry them into other work. The threads end when the queue is gone.
final class BackgroundQueue: @unchecked Sendable {
  /// The jobs and the threads' lifetime, shared with the threads (which outlive nothing they need).
  private final class State: @unchecked Sendable {
    let condition = NSCondition()
    /// Each job with when it was queued (`MonotonicClock` seconds).
    var jobs: [(job: @Sendable () -> Void, queuedAt: Double)] = []
    /// When the job the worker runs was queued; nil while it waits for one.
    var runningSince: Double?
    var stopped = false
    /// Whether the worker is out of the idle class for its current backlog.
    var raised = false
    /// How often the guard lifted the worker out of the idle class.
    var raises = 0
    var worker: pthread_t?

    /// When the oldest outstanding job was queued, if any is.
    var headSince: Double? { runningSince ?? jobs.first?.queuedAt }
  }

  private let state = State()

  /// The niceness of the queue's thread.
  static let niceness: Int32 = 10

  /// How long the job at the head of the queue may be outstanding before the worker leaves the
  /// idle class: a load of a large board takes a few tens of milliseconds of CPU, and beside busy
  /// cores an idle-class worker would not finish it at all.
  static let starvationBound = 0.05

  /// Linux' `SCHED_IDLE` (not exported by Swift's Glibc module).
  static let idleClassPolicy: Int32 = 5

  /// Whether the worker runs in the idle class (a probe found it can be lifted out again).
  let idleClass: Bool

  /// A queue whose thread is named `name`; `idleClass` false keeps its thread at nice 10 always.
  init(name: String, idleClass: Bool = BackgroundQueue.idleClassAllowed) {
    self.idleClass = idleClass
    let state = self.state
    let worker = Thread { BackgroundQueue.work(state, idleClass: idleClass) }
    worker.name = name
    worker.start()
    if idleClass {
      let guardThread = Thread { BackgroundQueue.watch(state) }
      guardThread.name = name + "-guard"
      guardThread.start()
    }
  }

  deinit {
    state.condition.lock()
    state.stopped = true
    state.condition.broadcast()
    state.condition.unlock()
  }

  /// Runs `job` after the jobs queued before it.
  func async(_ job: @escaping @Sendable () -> Void) {
    state.condition.lock()
    state.jobs.append((job, MonotonicClock.now()))
    state.condition.broadcast()
    state.condition.unlock()
  }

  /// How often the guard lifted the worker out of the idle class (0 without `idleClass`).
  var raises: Int { state.condition.withLock { state.raises } }

  private static func work(_ state: State, idleClass: Bool) {
    #if os(Linux)
      // who 0 is the calling thread: on Linux the nice value is per thread.
      _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
      if idleClass { setPolicy(pthread_self(), idle: true) }
    #endif
    state.condition.withLock { state.worker = pthread_self() }
    while true {
      state.condition.lock()
      if state.jobs.isEmpty && state.raised {
        // Back to the idle class once the backlog is gone (under the lock: the guard raises under it).
        state.raised = false
        setPolicy(pthread_self(), idle: true)
      }
      while state.jobs.isEmpty && !state.stopped { state.condition.wait() }
      if state.jobs.isEmpty {
        state.condition.unlock()
        return
      }
      let next = state.jobs.removeFirst()
      state.runningSince = next.queuedAt
      state.condition.broadcast()
      state.condition.unlock()
      next.job()
      state.condition.withLock { state.runningSince = nil }
    }
  }

  /// The guard: lifts the worker out of the idle class once the job at the head of the queue has
  /// been outstanding for `starvationBound`.
  private static func watch(_ state: State) {
    state.condition.lock()
    defer { state.condition.unlock() }
    while !state.stopped {
      guard !state.raised, let since = state.headSince, let worker = state.worker else {
        state.condition.wait()
        continue
      }
      let now = MonotonicClock.now()
      if now >= since + starvationBound {
        state.raised = true
        state.raises += 1
        setPolicy(worker, idle: false)
      } else {
        _ = state.condition.wait(until: Date(timeIntervalSinceNow: since + starvationBound - now))
      }
    }
  }

  /// Moves `thread` into the idle class or back to the normal one (its nice value stays).
  @discardableResult
  private static func setPolicy(_ thread: pthread_t, idle: Bool) -> Bool {
    #if os(Linux)
      var parameters = sched_param()
      return pthread_setschedparam(thread, idle ? idleClassPolicy : Int32(SCHED_OTHER), &parameters) == 0
    #else
      return false
    #endif
  }

  /// Whether a thread of this process put in the idle class can be lifted out of it again (Linux
  /// refuses without `CAP_SYS_NICE` unless `RLIMIT_NICE` allows the thread's nice value), found
  /// once by trying it on a thread of its own.
  static let idleClassAllowed: Bool = {
    #if os(Linux)
      final class Answer: @unchecked Sendable { var allowed = false }
      let answer = Answer()
      let done = DispatchSemaphore(value: 0)
      let probe = Thread {
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
        if setPolicy(pthread_self(), idle: true) {
          answer.allowed = setPolicy(pthread_self(), idle: false)
        }
        done.signal()
      }
      probe.name = "reorder-sched-probe"
      probe.start()
      done.wait()  // the semaphore orders the probe's write before this read
      return answer.allowed
    #else
      return false
    #endif
  }()
}
