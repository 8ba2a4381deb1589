import Foundation
import ReorderBasics

extension Store {
  /// Queues ops of a room for the next group commit.
  ///
  /// Once the transaction holding them is committed (WAL, `synchronous=FULL`), `onDurable` is called
  /// exactly once, on the writer thread, with the room's highest durable seq at that point (the
  /// highest seq of these ops when a room appends in increasing order; for an empty `ops`, the
  /// room's highest stored seq, 0 if none). Completions run in append order. Keep them short: the
  /// next commit waits for them.
  ///
  /// If the ops cannot be stored, `onDurable` is not called; `onFailure` is (on the writer thread, or
  /// at once on the calling thread when the store is closed). Without `onFailure` the error is
  /// written to standard error. Storing an op again with the same (room, seq) and identical bytes
  /// is an idempotent success; different bytes fail with `StoreError.conflictingSeq` and store none
  /// of this call's ops.
  ///
  /// - Complexity: O(1) on the calling thread; O(ops × log n) on the writer.
  public func append(
    room: String, ops: [StoredOp], onDurable: @escaping @Sendable (UInt64) -> Void,
    onFailure: (@Sendable (StoreError) -> Void)? = nil
  ) {
    let job = StoreWriter.Job.append(room: room, ops: ops, queued: ContinuousClock.now) { result in
      switch result {
      case .success(let seq): onDurable(seq)
      case .failure(let error): Store.report(error, to: onFailure, while: "append to room \(room.debugDescription)")
      }
    }
    if !writer.enqueue(job) { Store.report(.closed, to: onFailure, while: "append to room \(room.debugDescription)") }
  }

  /// Queues a snapshot of a room taken at `seq` for the next group commit (asynchronous).
  ///
  /// A room keeps its latest two snapshots (by seq); saving the same seq again replaces its bytes.
  /// `board`, if given, is the board's JSON at `seq` (`welcome.board`), kept with the snapshot.
  /// `onSaved`, if given, runs on the writer thread once the snapshot is committed or has failed.
  public func saveSnapshot(
    room: String, seq: UInt64, bytes: [UInt8], board: [UInt8]? = nil,
    onSaved: (@Sendable (Result<Void, StoreError>) -> Void)? = nil
  ) {
    let job = StoreWriter.Job.snapshot(room: room, seq: seq, bytes: bytes, board: board) { result in
      if let onSaved {
        onSaved(result)
      } else if case .failure(let error) = result {
        Store.report(error, to: nil, while: "save a snapshot of room \(room.debugDescription)")
      }
    }
    if !writer.enqueue(job) {
      if let onSaved { onSaved(.failure(.closed)) } else { Store.report(.closed, to: nil, while: "save a snapshot") }
    }
  }

  /// Takes writes of `room` again after one of them failed.
  ///
  /// From a room's first failed append or snapshot on, the store refuses (`StoreError.roomStopped`)
  /// every later write of the room, since those were made on state that assumed the failed one
  /// stored. Call this when the room's writer starts again from what is stored (before it loads the
  /// room), once it has stopped writing the old state: the writer is serial, so this orders after
  /// every write queued before it and before every write queued after it.
  public func reopen(room: String) {
    _ = writer.enqueue(.reopen(room: room))
  }

  /// Runs `body` once everything queued before this call is committed (or has failed): on the
  /// writer thread, or at once on the calling thread when the store is closed. Never blocks.
  public func afterQueuedWrites(_ body: @escaping @Sendable () -> Void) {
    if !writer.enqueue(.barrier(body)) { body() }
  }

  /// Blocks until everything queued before this call is committed (or has failed).
  ///
  /// Must not be called from an `onDurable` (the writer thread); returns at once when closed.
  public func flush() {
    precondition(!writer.isWriterThread, "Store.flush() called on the writer thread (from a completion)")
    let done = DispatchSemaphore(value: 0)
    if writer.enqueue(.barrier({ done.signal() })) { done.wait() }
  }

  /// Hands `error` to the caller's handler, or logs it.
  static func report(_ error: StoreError, to handler: (@Sendable (StoreError) -> Void)?, while action: String) {
    if let handler {
      handler(error)
    } else {
      Log.error("store failed to \(action)", ["error": "\(error)"])
    }
  }
}
