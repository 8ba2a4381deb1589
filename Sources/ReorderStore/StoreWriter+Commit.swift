import CSQLite

extension StoreWriter {
  /// What became of one job of a batch.
  private enum Outcome {
    case appended(Result<UInt64, StoreError>)
    case snapshot(Result<Void, StoreError>)
    case barrier
    case board(Result<BoardWriteResult, StoreError>)
  }

  /// Writes a whole batch in one transaction, commits, then runs the completions in queue order.
  ///
  /// An append that conflicts with stored ops fails alone (its savepoint is rolled back); any other
  /// error (disk full, I/O) fails the whole batch, and nothing of it is acknowledged. Either way the
  /// rooms of the failed jobs stop taking writes until they are reopened (`stoppedRooms`), and the
  /// jobs of a stopped room fail without being written.
  func process(_ batch: [Job]) {
    var outcomes: [Outcome] = []
    outcomes.reserveCapacity(batch.count)
    let writes = batch.contains {
      switch $0 {
      case .append, .snapshot, .board: true
      case .reopen, .barrier: false
      }
    }
    if writes {
      let clock = ContinuousClock()
      let start = clock.now
      var updated: [String: UInt64] = [:]
      var committed = false
      let stoppedBefore = stoppedRooms
      do {
        try connection.statement("BEGIN IMMEDIATE").run()
        let superseded = StoreWriter.supersededSummaries(batch)
        for (index, job) in batch.enumerated() {
          switch job {
          case .append(let room, let ops, _, _):
            let result: Result<UInt64, StoreError> =
              if let refused = stopped(room) { .failure(refused) } else {
                try write(room: room, ops: ops, updated: &updated)
              }
            outcomes.append(.appended(result))
            if case .failure(let error) = result { stop(room, error) }
          case .snapshot(let room, let seq, let bytes, let board, _):
            let result: Result<Void, StoreError> =
              if let refused = stopped(room) { .failure(refused) } else {
                try writeSnapshot(room: room, seq: seq, bytes: bytes, board: board, updated: &updated)
              }
            outcomes.append(.snapshot(result))
            if case .failure(let error) = result { stop(room, error) }
          case .reopen(let room):
            stoppedRooms[room] = nil
            outcomes.append(.barrier)
          case .barrier:
            outcomes.append(.barrier)
          case .board(let write, _):
            // A whole-room write replaces everything stored for the room, and everything queued
            // before it was refused already: the room may take writes again. A summary of a
            // stopped room is not written (it would name seqs that were refused).
            let skipped = superseded.contains(index) || (write.isSummary && stopped(write.room) != nil)
            if !write.isSummary { stoppedRooms[write.room] = nil }
            outcomes.append(.board(.success(try self.write(write, updated: &updated, superseded: skipped))))
          }
        }
        try connection.statement("COMMIT").run()
        committed = true
        highWater.merge(updated) { _, new in new }
      } catch {
        if connection.inTransaction { try? connection.statement("ROLLBACK").run() }
        // Every job was rolled back: each fails with the batch's error, except those of rooms
        // stopped before the batch, which were refused; then the rooms of all of them stop.
        stoppedRooms = stoppedBefore
        var refusing = stoppedBefore
        outcomes = batch.map { job in
          switch job {
          case .append(let room, _, _, _):
            let failure = Self.refusal(room, refusing[room]) ?? error
            stop(room, error)
            return .appended(.failure(failure))
          case .snapshot(let room, _, _, _, _):
            let failure = Self.refusal(room, refusing[room]) ?? error
            stop(room, error)
            return .snapshot(.failure(failure))
          case .reopen(let room):
            stoppedRooms[room] = nil
            refusing[room] = nil
            return .barrier
          case .barrier:
            return .barrier
          case .board(let write, _):
            if !write.isSummary { stop(write.room, error) }
            return .board(.failure(error))
          }
        }
      }
      let end = clock.now
      recordBatch(outcomes, batch: batch, committed: committed, nanoseconds: start.duration(to: end), end: end)
    } else {
      for case .reopen(let room) in batch { stoppedRooms[room] = nil }
    }
    for (index, job) in batch.enumerated() {
      switch (job, writes ? outcomes[index] : .barrier) {
      case (.append(_, _, _, let completion), .appended(let result)): completion(result)
      case (.snapshot(_, _, _, _, let completion), .snapshot(let result)): completion(result)
      case (.reopen, _): break
      case (.barrier(let done), _): done()
      case (.board(_, let completion), .board(let result)): completion(result)
      default: preconditionFailure("outcome does not match its job")
      }
    }
  }

  /// The error a write of `room` fails with while the room is stopped, nil when it takes writes.
  private func stopped(_ room: String) -> StoreError? { Self.refusal(room, stoppedRooms[room]) }

  /// The refusal of a write to `room`, stopped by `cause` (nil: not stopped).
  private static func refusal(_ room: String, _ cause: StoreError?) -> StoreError? {
    cause.map { .roomStopped(room: room, cause: $0.description) }
  }

  /// Stops `room` taking writes after `error` (the first failure is the one kept as the cause).
  private func stop(_ room: String, _ error: StoreError) {
    if stoppedRooms[room] == nil { stoppedRooms[room] = error }
  }

  private func recordBatch(
    _ outcomes: [Outcome], batch: [Job], committed: Bool, nanoseconds: Duration, end: ContinuousClock.Instant
  ) {
    var latencies: [Double] = []
    var appends = 0
    var failed = 0
    var ops = 0
    var snapshots = 0
    for (outcome, job) in zip(outcomes, batch) {
      switch (outcome, job) {
      case (.appended(.success), .append(_, let jobOps, let queued, _)):
        appends += 1
        ops += jobOps.count
        latencies.append(Self.seconds(queued.duration(to: end)))
      case (.appended(.failure), _): failed += 1
      case (.snapshot(.success), _): snapshots += 1
      default: break
      }
    }
    let (seconds, attoseconds) = nanoseconds.components
    let elapsed = UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds / 1_000_000_000))
    record { stats in
      if committed { stats.commits += 1 }
      stats.appends += appends
      stats.ops += ops
      stats.snapshots += snapshots
      stats.failedAppends += failed
      stats.largestBatch = max(stats.largestBatch, appends + failed)
      stats.commitNanoseconds += elapsed
      for latency in latencies { stats.commitLatency.record(seconds: latency) }
    }
  }

  static func seconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) + Double(attoseconds) / 1e18
  }

  /// The highest durable seq of `room` as seen inside the current transaction; registers new rooms.
  func highestSeq(of room: String, updated: inout [String: UInt64]) throws(StoreError) -> UInt64 {
    if let high = updated[room] ?? highWater[room] { return high }
    let insert = try connection.statement("INSERT INTO rooms(name) VALUES (?1) ON CONFLICT DO NOTHING")
    try insert.bind(room, at: 1)
    try insert.run()
    let query = try connection.statement("SELECT max(seq) FROM ops WHERE room = ?1")
    try query.bind(room, at: 1)
    let high: UInt64 = try query.step() && !query.isNull(0) ? UInt64(query.int64(0)) : 0
    query.reset()
    updated[room] = high
    return high
  }

  /// Inserts one append's ops. Throws only errors that doom the whole transaction.
  private func write(
    room: String, ops: [StoredOp], updated: inout [String: UInt64]
  ) throws(StoreError) -> Result<UInt64, StoreError> {
    if let bad = ops.first(where: { $0.seq > UInt64(Int64.max) }) { return .failure(.seqOutOfRange(bad.seq)) }
    var high = try highestSeq(of: room, updated: &updated)
    let guarded = ops.count > 1
    if guarded { try connection.statement("SAVEPOINT append").run() }
    let insert = try connection.statement(
      "INSERT INTO ops(room, seq, payload) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING")
    for op in ops {
      insert.reset()
      try insert.bind(room, at: 1)
      try insert.bind(Int64(op.seq), at: 2)
      try insert.bind(op.payload, at: 3)
      try insert.run()
      if connection.changes == 0, try storedPayload(room: room, seq: op.seq) != op.payload {
        // Same (room, seq) with other bytes: refuse this append only. Identical bytes are an idempotent retry.
        if guarded { try connection.execute("ROLLBACK TO append; RELEASE append") }
        return .failure(.conflictingSeq(room: room, seq: op.seq))
      }
      high = max(high, op.seq)
    }
    if guarded { try connection.statement("RELEASE append").run() }
    updated[room] = high
    return .success(high)
  }

  private func storedPayload(room: String, seq: UInt64) throws(StoreError) -> [UInt8]? {
    let query = try connection.statement("SELECT payload FROM ops WHERE room = ?1 AND seq = ?2")
    try query.bind(room, at: 1)
    try query.bind(Int64(seq), at: 2)
    defer { query.reset() }
    return try query.step() ? query.bytes(0) : nil
  }

  /// Upserts a snapshot, then trims the room's log: with `retainedOps` R and this snapshot at S, the
  /// base is the latest snapshot at or before S − R; the snapshots before the base and the ops up
  /// to it (but op 1, which carries the epoch) are deleted. So every op kept after the base has a
  /// snapshot at or before it, and the board at any kept seq can be rebuilt (`GET …?at=`), while
  /// the log holds at least R ops before S and at most R plus one snapshot interval. Without
  /// `retainedOps` the latest two snapshots are kept and no op is deleted.
  private func writeSnapshot(
    room: String, seq: UInt64, bytes: [UInt8], board: [UInt8]?, updated: inout [String: UInt64]
  ) throws(StoreError) -> Result<Void, StoreError> {
    guard seq <= UInt64(Int64.max) else { return .failure(.seqOutOfRange(seq)) }
    if let fault = snapshotFault?(room, seq) { return .failure(fault) }
    _ = try highestSeq(of: room, updated: &updated)
    let upsert = try connection.statement(
      """
      INSERT INTO snapshots(room, seq, bytes, board) VALUES (?1, ?2, ?3, ?4)
      ON CONFLICT DO UPDATE SET bytes = excluded.bytes, board = excluded.board
      """)
    try upsert.bind(room, at: 1)
    try upsert.bind(Int64(seq), at: 2)
    try upsert.bind(bytes, at: 3)
    if let board { try upsert.bind(board, at: 4) }  // unbound parameters are NULL
    try upsert.run()
    guard let retainedOps else {
      let prune = try connection.statement(
        """
        DELETE FROM snapshots WHERE room = ?1 AND seq < (
          SELECT seq FROM snapshots WHERE room = ?1 ORDER BY seq DESC LIMIT 1 OFFSET 1)
        """)
      try prune.bind(room, at: 1)
      try prune.run()
      return .success(())
    }
    guard seq > UInt64(retainedOps) + 1 else { return .success(()) }
    let baseQuery = try connection.statement(
      "SELECT seq FROM snapshots WHERE room = ?1 AND seq <= ?2 ORDER BY seq DESC LIMIT 1")
    try baseQuery.bind(room, at: 1)
    try baseQuery.bind(Int64(seq - UInt64(retainedOps)), at: 2)
    let base = try baseQuery.step() ? baseQuery.int64(0) : nil
    baseQuery.reset()
    guard let base else { return .success(()) }
    let prune = try connection.statement("DELETE FROM snapshots WHERE room = ?1 AND seq < ?2")
    try prune.bind(room, at: 1)
    try prune.bind(base, at: 2)
    try prune.run()
    // Op 1 stays: it carries the room's epoch.
    let trim = try connection.statement("DELETE FROM ops WHERE room = ?1 AND seq > 1 AND seq <= ?2")
    try trim.bind(room, at: 1)
    try trim.bind(base, at: 2)
    try trim.run()
    if connection.changes > 0 { try reclaimFreePages() }
    return .success(())
  }
}
