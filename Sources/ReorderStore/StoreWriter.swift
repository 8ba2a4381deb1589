import Foundation
import ReorderBasics

/// The group-commit writer: one dedicated thread owning the write connection.
///
/// Producers call `enqueue` from any thread. The thread wakes, takes everything queued, writes it
/// in ONE transaction, commits (one fsync with `synchronous=FULL`), then runs each job's completion
/// in queue order. So the more ops arrive while a commit is in flight, the more the next one carries.
///
/// Threading: the thread is a `WorkerThread` (`reorder-store-writer`); what its lock guards is
/// `Shared` (the queue, the counters). `connection` and `highWater` are touched only by the writer
/// thread (and by `init`'s caller before the thread starts).
final class StoreWriter: @unchecked Sendable {
  /// One unit of work for the writer.
  enum Job {
    /// Store ops of a room; the completion gets the room's highest durable seq, or the error.
    /// `queued` is when `append` was called (for `StoreStatistics.commitLatency`).
    case append(
      room: String, ops: [StoredOp], queued: ContinuousClock.Instant,
      completion: @Sendable (Result<UInt64, StoreError>) -> Void)
    /// Store a snapshot (keeping the latest two per room).
    case snapshot(
      room: String, seq: UInt64, bytes: [UInt8], board: [UInt8]?,
      completion: @Sendable (Result<Void, StoreError>) -> Void
    )
    /// Take writes of `room` again (see `stoppedRooms`).
    case reopen(room: String)
    /// Runs once everything queued before it is committed (or failed).
    case barrier(@Sendable () -> Void)
    /// Replaces, deletes or summarises a whole room (`Store+Boards.swift`); the completion gets
    /// the room's highest durable seq afterwards and whether it had stored state before.
    case board(BoardWrite, completion: @Sendable (Result<BoardWriteResult, StoreError>) -> Void)
  }

  /// What the worker's lock guards.
  struct Shared {
    /// Jobs not yet taken by the thread.
    var queue: [Job] = []
    /// Set by `stop()`: no job is queued after it.
    var closing = false
    var stats = StoreStatistics()
    /// The writer thread, once it has taken a batch.
    var writerThread: pthread_t?
  }

  /// What the thread does next.
  enum Work {
    /// Writes these jobs (`process`).
    case batch([Job])
    /// Closes the connection: stopping, with nothing left queued.
    case close
  }

  private let worker = WorkerThread(name: "reorder-store-writer", state: Shared())

  /// The write connection; writer thread only.
  let connection: SQLiteConnection
  /// Rooms known to exist in the database, with their highest durable seq; writer thread only.
  var highWater: [String: UInt64] = [:]
  /// Rooms whose writes are refused (`StoreError.roomStopped`), with the error that stopped them:
  /// from a room's first failed append, snapshot or whole-room write until a `reopen` job or a
  /// whole-room `.replace`/`.delete` (which stores a history of its own). Writer thread only.
  ///
  /// The rule: once one write of a room fails, no later write of it may be stored until whoever
  /// writes the room has started again from what is stored. Those writes were made on state that
  /// assumed the failed one: stored, they would leave a gap in the log (a failed append, and the
  /// room could never be loaded again) or ops made on a compacted board that the disk does not have
  /// (a failed snapshot: a reload would replay them onto the older board). The writer is serial,
  /// so a `reopen` queued once the writer of the room has stopped (the rooms issue it with the
  /// room's next load, after dropping the room) orders after every one of its stale writes.
  var stoppedRooms: [String: StoreError] = [:]
  /// Ops kept before a room's latest snapshot (nil: all): older ones are deleted when a snapshot
  /// is saved. Set before `start()`.
  var retainedOps: Int?
  /// Tests only: a snapshot for which this returns an error fails alone with it, as if its write
  /// had failed while the batch's other jobs are stored. Writer thread only (set it from a barrier).
  var snapshotFault: (@Sendable (_ room: String, _ seq: UInt64) -> StoreError?)?

  init(connection: SQLiteConnection) {
    self.connection = connection
  }

  /// Starts the writer thread. Call once, after the schema is ready.
  func start() {
    precondition(!worker.isStarted, "StoreWriter.start() called twice")
    worker.start(
      next: { shared, stopping -> WorkerStep<Work> in
        if !shared.queue.isEmpty {
          let batch = shared.queue
          shared.queue.removeAll(keepingCapacity: true)
          return .run(.batch(batch))
        }
        return stopping ? .finish(.close) : .wait
      },
      perform: { [self] work in
        switch work {
        case .batch(let batch):
          worker.withLock { $0.writerThread = pthread_self() }
          process(batch)
        case .close:
          connection.close()
        }
      })
  }

  /// Queues a job. Returns false (and does not queue) once the writer is stopping.
  func enqueue(_ job: Job) -> Bool {
    worker.update { shared, wake in
      if shared.closing { return false }
      shared.queue.append(job)
      wake = shared.queue.count == 1
      return true
    }
  }

  /// Whether the caller is running on the writer thread (inside a completion).
  var isWriterThread: Bool {
    guard let writerThread = worker.withLock({ $0.writerThread }) else { return false }
    return pthread_equal(writerThread, pthread_self()) != 0
  }

  /// Flushes everything queued, then stops the thread and closes the connection. Idempotent.
  ///
  /// Called from a completion (on the writer thread itself) it only asks the thread to stop after
  /// the current batch, since waiting there would deadlock.
  func stop() {
    let onWriter = isWriterThread
    let first = worker.withLock { shared in
      defer { shared.closing = true }
      return !shared.closing
    }
    guard worker.isStarted else {
      if first { connection.close() }
      return
    }
    worker.stop()
    if !onWriter { worker.join() }
  }

  /// A copy of the counters.
  var statistics: StoreStatistics {
    worker.withLock { shared in
      var copy = shared.stats
      copy.queued = shared.queue.count
      return copy
    }
  }

  /// Updates the counters under the lock.
  func record(_ update: (inout StoreStatistics) -> Void) {
    worker.withLock { update(&$0.stats) }
  }
}
