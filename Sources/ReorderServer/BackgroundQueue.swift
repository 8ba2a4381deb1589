import Foundation

/// A serial queue on a thread of its own that runs at a lower CPU priority (nice 10) than the
/// service thread: room loads (reading, decoding and encoding a whole board) are work that may
/// wait, and on a machine with few cores a load must not take the CPU from the thread that
/// relays everyone's drags. Not `SCHED_IDLE`: members wait for a load, and an idle-class thread
/// gets almost no CPU while every core is busy (weight 3 against a nice-0 thread's 1,024), so on
/// a saturated host rooms stayed unavailable for seconds after a restart; at nice 10 it gets
/// about a tenth of a busy core. Nor the idle class with a guard that lifts a starved thread out
/// of it: a job shares locks with the service thread (the transport's post queue, malloc's arenas
/// when one thread frees what another allocated, this queue's own), and an idle-class thread
/// preempted while holding one stalls the service thread until a core is idle. A dedicated
/// thread, since nice is per thread on Linux and a pool thread would carry it into other work.
/// The thread ends when the queue is gone.
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
      // who 0 is the calling thread: on Linux the nice value is per thread.
      _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
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
