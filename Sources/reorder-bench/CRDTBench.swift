import ReorderCRDT

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The fixed CRDT workload (docs/CRDT.md, "Benchmark"): one list of 10,000 items, then 100,000
/// uniformly random moves (seed 42): each move takes the item at a random index `from` to a random
/// final index `to` (the same `(from, to)` pairs as loro's `MovableList.mov(from, to)`).
struct CRDTBench {
  static let itemCount = 10_000
  static let moveCount = 100_000
  static let seed: UInt64 = 42
  static let list: ListID = "list"
  /// Runs per phase (best counts); `REORDER_BENCH_REPEATS` overrides.
  static let repeats = max(1, Int(getenv("REORDER_BENCH_REPEATS").map { atoi($0) } ?? 5))

  struct Results {
    var remoteOpsPerSecond = 0.0
    var localOpsPerSecond = 0.0
    var mergeSeconds = 0.0
    var snapshotBytes = 0
    var snapshotLoadMilliseconds = 0.0
    var bytesPerMove = 0.0
    var peakRSSBytes = 0
  }

  #if canImport(Glibc)
    static let RUSAGE_SELF_WHO = __rusage_who_t(RUSAGE_SELF.rawValue)
  #else
    static let RUSAGE_SELF_WHO = RUSAGE_SELF
  #endif

  /// Seconds of CPU time used by this process (not wall time: the machine is shared, and other
  /// processes' load should not count against us; `REORDER_BENCH_WALL=1` switches to wall time).
  static let clock = getenv("REORDER_BENCH_WALL") != nil ? CLOCK_MONOTONIC : CLOCK_PROCESS_CPUTIME_ID

  static func now() -> Double {
    var ts = timespec()
    clock_gettime(clock, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
  }

  static func peakRSS() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF_WHO, &usage)
    return Int(usage.ru_maxrss) * 1024
  }

  /// The 10,000-item base made by replica 1, and its ops.
  static func base() -> (Board, [Op]) {
    var board = Board(replica: ReplicaID(1))
    var ops = [try! board.createList(list, title: "bench", layout: .list, after: nil)]
    var last: ItemID? = nil
    for _ in 0..<itemCount {
      let op = try! board.insert(list: list, after: last, before: nil, fields: [:])
      last = op.item
      ops.append(op)
    }
    return (board, ops)
  }

  /// One random move as an intent: the item at `from` goes to final index `to`.
  @inline(__always)
  static func move(_ board: inout Board, from: Int, to: Int) -> Op {
    let item = board.item(at: from, in: list)!
    // Indices in the list without the moved item.
    let after = to > 0 ? board.item(at: to - 1 < from ? to - 1 : to, in: list) : nil
    let before = after == nil ? board.item(at: from == 0 ? 1 : 0, in: list) : nil
    return try! board.move(item, to: list, after: after, before: before)
  }

  static func run() -> Results {
    var results = Results()
    var rng = Xoshiro256(seed: seed)
    let pairs = (0..<moveCount).map { _ in (rng.below(itemCount), rng.below(itemCount)) }
    let (baseBoard, baseOps) = base()

    // Local: intent → op → apply. Each phase runs `repeats` times from a fresh copy; the best
    // time counts (the machine is shared, so slower runs measure other people's load).
    // The ops go into one buffer reused by every run, so the timed loop does not page in the
    // benchmark's own storage (loro's loop keeps nothing either).
    var made: [Op] = []
    made.reserveCapacity(moveCount)
    var local = baseBoard
    var best = Double.infinity
    for _ in 0..<repeats {
      var board = baseBoard
      made.removeAll(keepingCapacity: true)
      let start = now()
      for (from, to) in pairs { made.append(move(&board, from: from, to: to)) }
      best = min(best, now() - start)
      local = board
    }
    let ops = made
    results.localOpsPerSecond = Double(moveCount) / best
    verify(local, pairs: pairs)

    // Remote: decode the binary op + apply, one at a time.
    let encoded = ops.map { $0.encoded() }
    results.bytesPerMove = Double(encoded.reduce(0) { $0 + $1.count }) / Double(moveCount)
    var remoteBase = Board(replica: ReplicaID(2))
    for op in baseOps { remoteBase.apply(op) }
    best = .infinity
    for _ in 0..<repeats {
      var remote = remoteBase
      remote.apply(baseOps[0])  // a no-op that makes `remote` its own copy before timing
      let start = now()
      for bytes in encoded { remote.apply(try! Op(encoded: bytes)) }
      best = min(best, now() - start)
      precondition(remote.items(in: list) == local.items(in: list), "remote replica matches the local one")
    }
    results.remoteOpsPerSecond = Double(moveCount) / best

    // Snapshot of the state after the 100,000 moves.
    let snapshot = local.encodedSnapshot()
    results.snapshotBytes = snapshot.count
    best = .infinity
    for _ in 0..<(repeats * 5) {
      let start = now()
      let loaded = try! Board(snapshot: snapshot, replica: ReplicaID(3))
      best = min(best, now() - start)
      precondition(loaded.count(in: list) == itemCount)
    }
    results.snapshotLoadMilliseconds = best * 1000
    let loaded = try! Board(snapshot: snapshot, replica: ReplicaID(3))
    precondition(loaded.items(in: list) == local.items(in: list), "snapshot round trip")

    // Merge: two replicas each make 50,000 moves offline from the base, then exchange.
    var b0 = Board(replica: ReplicaID(2))
    for op in baseOps { b0.apply(op) }
    var a0 = baseBoard
    let half = moveCount / 2
    let opsA = pairs[0..<half].map { move(&a0, from: $0.0, to: $0.1).encoded() }
    let opsB = pairs[half...].map { move(&b0, from: $0.0, to: $0.1).encoded() }
    best = .infinity
    for _ in 0..<repeats {
      var a = a0
      var b = b0
      a.apply(baseOps[0])
      b.apply(baseOps[0])
      let start = now()
      for bytes in opsB { a.apply(try! Op(encoded: bytes)) }
      for bytes in opsA { b.apply(try! Op(encoded: bytes)) }
      best = min(best, now() - start)
      precondition(a.items(in: list) == b.items(in: list), "merged replicas converge")
      precondition(a.count(in: list) == itemCount, "every item exactly once after the merge")
    }
    results.mergeSeconds = best

    results.peakRSSBytes = peakRSS()
    return results
  }

  /// Runs one phase `repeats` times without the checks (for profilers); returns its best time.
  static func profile(_ phase: String) -> String {
    var rng = Xoshiro256(seed: seed)
    let pairs = (0..<moveCount).map { _ in (rng.below(itemCount), rng.below(itemCount)) }
    let (baseBoard, baseOps) = base()
    var best = Double.infinity
    var local = baseBoard
    var ops: [Op] = []
    ops.reserveCapacity(moveCount)
    let start = now()
    for (from, to) in pairs { ops.append(move(&local, from: from, to: to)) }
    if phase == "local" { best = now() - start }
    let snapshot = phase == "load" ? local.encodedSnapshot() : []
    for _ in 0..<repeats {
      switch phase {
      case "local":
        var board = baseBoard
        let start = now()
        for (from, to) in pairs { _ = move(&board, from: from, to: to) }
        best = min(best, now() - start)
      case "remote":
        var remote = Board(replica: ReplicaID(2))
        for op in baseOps { remote.apply(op) }
        let encoded = ops.map { $0.encoded() }
        let start = now()
        for bytes in encoded { remote.apply(try! Op(encoded: bytes)) }
        best = min(best, now() - start)
      default:
        let start = now()
        let loaded = try! Board(snapshot: snapshot, replica: ReplicaID(3))
        best = min(best, now() - start)
        precondition(loaded.count(in: list) == itemCount)
      }
    }
    return "\(phase): best of \(repeats): \(best * 1000) ms"
  }

  /// The local board must equal a plain array given the same (from, to) moves.
  static func verify(_ board: Board, pairs: [(Int, Int)]) {
    let (baseBoard, _) = base()
    var array = baseBoard.items(in: list)
    for (from, to) in pairs { array.insert(array.remove(at: from), at: to) }
    precondition(board.items(in: list) == array, "the CRDT order equals the reference array")
  }
}
