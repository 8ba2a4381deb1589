import Foundation

/// A serial queue on a thread of its own that runs at the lowest CPU priority (`SCHED_IDLE`, and
/// nice 10 where that policy is refused), below the service thread: room loads (reading, decoding and encoding a whole board) are work that may
/// wait, and on a machine with few cores a load must not take the CPU from the thread that
/// relays everyone's drags. A dedicated thread, since nice is per thread on Linux and a pool
/// thread would carry it into other work. The thread ends when the queue is gone.
final class BackgroundQueue: @unchecked Sendable {
  /// The jobs and the thread's lifetime, shared with the thread (which outlives nothing it needs).
  private final class State: @unchecked Sendable {
    let condition = NSCondition()
    var jobs: [@Sendable () -> Void] = []
    var stopped = false
  }

  private let state = State()

  /// The niceness of the queue's thread.
  static let niceness: Int32 = 10
  /// `SCHED_IDLE` (Linux, `<bits/sched.h>`: 5); Glibc defines it only under `_GNU_SOURCE`, which
  /// Swift's import does not see.
  static let idlePolicy: Int32 = 5

  /// A queue whose thread is named `name`.
  init(name: String) {
    let state = self.state
    let thread = Thread { BackgroundQueue.run(state) }
    thread.name = name
    thread.start()
  }

  deinit {
    state.condition.lock()
    state.stopped = true
    state.condition.signal()
    state.condition.unlock()
  }

  /// Runs `job` after the jobs queued before it.
  func async(_ job: @escaping @Sendable () -> Void) {
    state.condition.lock()
    state.jobs.append(job)
    state.condition.signal()
    state.condition.unlock()
  }

  private static func run(_ state: State) {
    #if os(Linux)
      // who 0 is the calling thread: on Linux the nice value and the policy are per thread.
      _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
      // SCHED_IDLE: it runs only when no other thread wants the CPU, and a waking service thread
      // takes it at once (with a nice value alone it waits out a scheduler slice).
      var parameters = sched_param()
      _ = sched_setscheduler(0, idlePolicy, &parameters)
    #endif
    while true {
      state.condition.lock()
      while state.jobs.isEmpty && !state.stopped { state.condition.wait() }
      if state.jobs.isEmpty {
        state.condition.unlock()
        return
      }
      let job = state.jobs.removeFirst()
      state.condition.unlock()
      job()
    }
  }
}
