/// A serial queue of jobs on a `WorkerThread` of its own, started by the first job (a queue
/// that is never used costs no thread). The thread ends once the queue is gone, after the jobs
/// queued before.
public final class JobQueue: Sendable {
  private let worker: WorkerThread<[@Sendable () -> Void]>

  /// A queue whose thread is named `name`, at nice `niceness` on Linux (nil: the process's).
  public init(name: String, niceness: Int32? = nil) {
    worker = WorkerThread(name: name, state: [], niceness: niceness)
  }

  deinit { worker.stop() }

  /// Runs `job` after the jobs queued before it. Any thread.
  public func async(_ job: @escaping @Sendable () -> Void) {
    worker.update { $0.append(job) }
    worker.start(
      next: { jobs, stopping in
        if !jobs.isEmpty {
          defer { jobs = [] }
          return .run(jobs)
        }
        return stopping ? .finish([]) : .wait
      },
      perform: { jobs in for job in jobs { job() } })
  }

  /// Whether the queue's thread was started (a job was queued).
  public var isStarted: Bool { worker.isStarted }
}
