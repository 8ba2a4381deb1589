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
/// A `JobQueue`: its thread starts with the first job and ends when the queue is gone.
public enum BackgroundQueue {
  /// The niceness of a queue's thread.
  public static let niceness: Int32 = 10

  /// A queue whose thread is named `name`, at `niceness`.
  public static func make(name: String) -> JobQueue { JobQueue(name: name, niceness: niceness) }
}
