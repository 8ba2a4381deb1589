import ReorderBasics

/// A `RoomLogStore` in memory: backs the rooms tests and tools that need no disk.
///
/// It answers either at once, inside the call (`.immediately`), or only when told
/// (`.onDemand`: `answerPending()`), so tests can drive both orders a real store can produce:
/// an answer before the call returns and one much later, with joins and frames arriving meanwhile.
/// Failures can be injected per operation. Thread-safe.
public final class InMemoryRoomStore: RoomLogStore, BoardWrites, Sendable {
  /// It keeps what it is given, as one node's store does.
  public static let keepsResolvedOps = true

  /// When completions run.
  public enum Answering: Sendable {
    /// Inside the call, before it returns.
    case immediately
    /// When `answerPending()` is called, in call order.
    case onDemand
  }

  /// The operations failures can be injected into.
  public enum Operation: Hashable, Sendable {
    case load, append, snapshot, entries, roomNames, boardWrite
  }

  private struct State {
    var snapshots: [String: RoomSnapshot] = [:]
    var logs: [String: [LogEntry]] = [:]
    var pending: [@Sendable () -> Void] = []
    var failures: [Operation: RoomStoreError] = [:]
    var calls: [Operation: Int] = [:]
  }

  private let state = Locked(State())
  private let answering: Answering

  /// An empty store.
  public init(answering: Answering = .immediately) { self.answering = answering }

  /// Stores entries at once, without a completion (seeding a test's storage).
  public func append(room: String, entries: [LogEntry]) {
    state.withLock { $0.logs[room, default: []].append(contentsOf: entries) }
  }

  /// Stores a snapshot at once (seeding a test's storage), with the board JSON if given.
  public func saveSnapshot(room: String, seq: UInt64, bytes: [UInt8], board: [UInt8]? = nil) {
    state.withLock { $0.snapshots[room] = RoomSnapshot(seq: seq, bytes: bytes, board: board) }
  }

  /// The snapshot stored for `room`, if any.
  public func snapshot(room: String) -> RoomSnapshot? { state.withLock { $0.snapshots[room] } }

  /// From now on `operation` fails with `error` (nil: succeeds again).
  public func fail(_ operation: Operation, with error: RoomStoreError?) {
    state.withLock { $0.failures[operation] = error }
  }

  /// How many times `operation` was asked for.
  public func calls(_ operation: Operation) -> Int { state.withLock { $0.calls[operation] ?? 0 } }

  /// Completions waiting for `answerPending()` (always 0 when answering immediately).
  public var pendingAnswers: Int { state.withLock { $0.pending.count } }

  /// Runs the completions held back so far, in call order (and those they cause, until none is left).
  public func answerPending() {
    while let next = state.withLock({ $0.pending.isEmpty ? nil : $0.pending.removeFirst() }) { next() }
  }

  /// Does `work` under the lock (the store's effect happens at call time, so reads see earlier
  /// writes in call order) and delivers its answer now or on demand.
  private func run<T: Sendable>(
    _ operation: Operation, _ completion: @escaping @Sendable (Result<T, RoomStoreError>) -> Void,
    _ work: @Sendable (inout State) -> Result<T, RoomStoreError>
  ) {
    let result: Result<T, RoomStoreError> = state.withLock { state in
      state.calls[operation, default: 0] += 1
      if let error = state.failures[operation] { return .failure(error) }
      return work(&state)
    }
    switch answering {
    case .immediately: completion(result)
    case .onDemand: state.withLock { $0.pending.append { completion(result) } }
    }
  }

  public func load(
    room: String, remembering: Int, completion: @escaping @Sendable (Result<RoomHistory, RoomStoreError>) -> Void
  ) {
    run(.load, completion) { state in
      let log = state.logs[room] ?? []
      return Result { () throws(RoomStoreError) in
        try RoomHistory.read(
          remembering: remembering, snapshot: { state.snapshots[room] },
          entries: { after, limit in Array(log.lazy.filter { $0.seq > after }.prefix(limit)) })
      }
    }
  }

  public func append(
    room: String, entries: [LogEntry], completion: @escaping @Sendable (Result<UInt64, RoomStoreError>) -> Void
  ) {
    run(.append, completion) { state in
      var log = state.logs[room] ?? []
      for entry in entries {
        if let last = log.last, entry.seq <= last.seq, let stored = log.first(where: { $0.seq == entry.seq }) {
          guard stored == entry else { return .failure(.conflict("room \(room) already has seq \(entry.seq)")) }
        } else {
          log.append(entry)
        }
      }
      state.logs[room] = log
      return .success(log.last?.seq ?? 0)
    }
  }

  public func saveSnapshot(
    room: String, snapshot: RoomSnapshot, completion: @escaping @Sendable (Result<Void, RoomStoreError>) -> Void
  ) {
    run(.snapshot, completion) { state in
      state.snapshots[room] = snapshot
      return .success(())
    }
  }

  public func entries(
    room: String, after: UInt64, limit: Int,
    completion: @escaping @Sendable (Result<[LogEntry], RoomStoreError>) -> Void
  ) {
    run(.entries, completion) { state in
      .success(Array((state.logs[room] ?? []).lazy.filter { $0.seq > after }.prefix(max(0, limit))))
    }
  }

  public func snapshot(
    room: String, atOrBefore seq: UInt64,
    completion: @escaping @Sendable (Result<RoomSnapshot?, RoomStoreError>) -> Void
  ) {
    run(.load, completion) { state in .success(state.snapshots[room].flatMap { $0.seq <= seq ? $0 : nil }) }
  }

  public func latestEntries(
    room: String, before: UInt64, limit: Int,
    completion: @escaping @Sendable (Result<[LogEntry], RoomStoreError>) -> Void
  ) {
    run(.entries, completion) { state in
      .success(Array((state.logs[room] ?? []).lazy.filter { $0.seq < before }.suffix(max(0, limit))))
    }
  }

  public func roomNames(completion: @escaping @Sendable (Result<[String], RoomStoreError>) -> Void) {
    run(.roomNames, completion) { state in .success(Set(state.logs.keys).union(state.snapshots.keys).sorted()) }
  }

  public func putBoard(
    room: String, epoch: String, replace: Bool, entries: [LogEntry], snapshot: RoomSnapshot, summary: BoardSummary,
    completion: @escaping @Sendable (Result<BoardPut, RoomStoreError>) -> Void
  ) {
    run(.boardWrite, completion) { state in
      let existed = state.logs[room]?.isEmpty == false || state.snapshots[room] != nil
      if existed && !replace { return .success(.exists) }
      state.logs[room] = entries
      state.snapshots[room] = snapshot
      return .success(existed ? .replaced : .created)
    }
  }

  public func deleteBoard(room: String, completion: @escaping @Sendable (Result<Bool, RoomStoreError>) -> Void) {
    run(.boardWrite, completion) { state in
      let existed = state.logs[room]?.isEmpty == false || state.snapshots[room] != nil
      state.logs[room] = nil
      state.snapshots[room] = nil
      return .success(existed)
    }
  }
}
