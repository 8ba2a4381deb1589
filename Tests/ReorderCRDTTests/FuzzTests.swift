import Foundation
import ReorderCRDT
import TestRandom
import Testing

/// A randomized world of 3–5 replicas making random intents and syncing partially, with duplicated
/// and reordered delivery, then exchanging everything in several orders.
struct FuzzWorld {
  var rng: SplitMix64
  var boards: [Board]
  /// Ops each replica has seen (made or received), in arrival order; relayed on syncs.
  var known: [[Op]]
  var knownIDs: [Set<OpID>]
  var universe: [Op] = []
  var log: [String] = []

  init(seed: UInt64) {
    rng = SplitMix64(seed: seed)
    let n = 3 + rng.below(3)
    boards = (0..<n).map { Board(replica: ReplicaID(UInt64($0 + 1))) }
    known = Array(repeating: [], count: n)
    knownIDs = Array(repeating: [], count: n)
  }

  mutating func record(_ op: Op, at r: Int) {
    universe.append(op)
    known[r].append(op)
    knownIDs[r].insert(op.id)
  }

  mutating func pick<T>(_ values: [T]) -> T? { values.isEmpty ? nil : values[rng.below(values.count)] }

  /// One random intent on replica `r` (skipped when it is refused).
  mutating func intent(_ r: Int) {
    var b = boards[r]
    let lists = b.lists.map(\.id)
    let items = b.allItems
    let roll = rng.below(100)
    let op: Op?
    do {
      if lists.isEmpty || roll < 4 {
        let explicit: ListID? = rng.chance(20) ? ListID("list\(rng.below(2))") : nil
        op = try b.createList(
          explicit, title: "t\(rng.below(9))", layout: rng.chance(50) ? .list : .grid, after: pick(lists))
      } else if roll < 34 || items.isEmpty {
        let list = pick(lists)!
        let (after, before) = anchors(b, list)
        let explicit: ItemID? = rng.chance(5) ? ItemID("dup\(rng.below(3))") : nil
        var fields: [String: FieldValue] = [:]
        if rng.chance(50) { fields["price"] = .number(Double(rng.below(20))) }
        if rng.chance(30) { fields["title"] = .string("n\(rng.below(5))") }
        op = try b.insert(list: list, after: after, before: before, fields: fields, item: explicit)
      } else if roll < 64 {
        let list = pick(lists)!
        let (after, before) = anchors(b, list)
        op = try b.move(pick(items)!, to: list, after: after, before: before)
      } else if roll < 72 {
        op = try b.delete(pick(items)!)
      } else if roll < 78 {
        op = try b.restore(pick(items)!)
      } else if roll < 86 {
        let value: FieldValue = rng.chance(50) ? .number(Double(rng.below(30))) : .string("v\(rng.below(4))")
        op = try b.set(pick(items)!, field: rng.chance(60) ? "price" : "title", value: value)
      } else if roll < 92 {
        let explicit: AssignmentID? = rng.chance(5) ? AssignmentID("as\(rng.below(2))") : nil
        op = try b.assign(pick(items)!, to: pick(items)!, assignment: explicit)
      } else if roll < 95 {
        guard let a = pick(b.assignments) else { return }
        op = try b.unassign(a.id)
      } else if roll < 96 {
        op = try b.moveList(pick(lists)!, after: rng.chance(30) ? nil : pick(lists))
      } else {
        op = try b.deleteList(pick(lists)!)
      }
    } catch {
      return
    }
    b.checkInvariants()
    boards[r] = b
    if let op {
      log.append("r\(r + 1) \(op)")
      record(op, at: r)
    }
  }

  /// Anchors in `list`: any item whose place is there (deleted ones too), or none.
  mutating func anchors(_ b: Board, _ list: ListID) -> (ItemID?, ItemID?) {
    let candidates = b.allItems.filter { b.item($0)?.list == list }
    let after = rng.chance(35) ? nil : pick(candidates)
    let before = rng.chance(35) ? nil : pick(candidates)
    return (after, before)
  }

  /// Delivers a random subset of what `source` knows to `target`, shuffled, some twice.
  mutating func sync(_ source: Int, _ target: Int) {
    guard !known[source].isEmpty else { return }
    var batch: [Op] = []
    for _ in 0..<(1 + rng.below(6)) {
      let op = known[source][rng.below(known[source].count)]
      batch.append(op)
      if rng.chance(25) { batch.append(op) }
    }
    batch.shuffle(using: &rng)
    var b = boards[target]
    for op in batch {
      b.apply(op)
      b.checkInvariants()
      if knownIDs[target].insert(op.id).inserted { known[target].append(op) }
    }
    boards[target] = b
  }

  mutating func run(steps: Int) {
    for _ in 0..<steps {
      let r = rng.below(boards.count)
      if rng.chance(3) {
        // Restart the replica from its snapshot (buffered ops and clock included).
        let restarted = try! Board(snapshot: boards[r].encodedSnapshot(), replica: boards[r].replica)
        restarted.checkInvariants()
        precondition(fingerprint(restarted) == fingerprint(boards[r]), "a restarted replica has the same state")
        precondition(restarted.pendingCount == boards[r].pendingCount, "a restarted replica keeps its buffer")
        boards[r] = restarted
      } else if rng.chance(60) {
        intent(r)
      } else {
        var t = rng.below(boards.count - 1)
        if t >= r { t += 1 }
        sync(r, t)
      }
    }
  }

  /// Every replica gets every op, in its own random order with duplicates.
  mutating func exchangeEverything() {
    for r in boards.indices {
      var ops = universe + universe.filter { _ in rng.chance(20) }
      ops.shuffle(using: &rng)
      for op in ops { boards[r].apply(op) }
      boards[r].checkInvariants()
    }
  }
}

/// Runs one seed; returns a failure description, or nil.
func fuzzFailure(seed: UInt64, steps: Int = 40) -> String? {
  var world = FuzzWorld(seed: seed)
  world.run(steps: steps)
  world.exchangeEverything()
  let expected = fingerprint(world.boards[0])
  for (r, b) in world.boards.enumerated() {
    if b.pendingCount != 0 { return "seed \(seed): replica \(r + 1) still buffers \(b.pendingCount) ops" }
    let got = fingerprint(b)
    if got != expected {
      return
        "seed \(seed): replica \(r + 1) diverged\n\(expected)\nvs\n\(got)\nops:\n\(world.log.joined(separator: "\n"))"
    }
    var placed: [ItemID] = []
    for list in b.allListIDs { placed += b.items(in: list) }
    let alive = b.allItems.filter { b.item($0)!.alive }
    if placed.sorted() != alive { return "seed \(seed): live items are not each placed exactly once" }
    // Liveness is derived: alive AND in a live list; only live items are indexed or assigned.
    let liveLists = Set(b.lists.map(\.id))
    for id in b.allItems {
      let info = b.item(id)!
      let live = info.alive && liveLists.contains(info.list)
      if b.isLiveItem(id) != live || (b.index(of: id) != nil) != live {
        return "seed \(seed): replica \(r + 1): item \(id) liveness is not alive-and-list-alive"
      }
    }
    for a in b.assignments where !b.isLiveItem(a.item) || !b.isLiveItem(a.target) {
      return "seed \(seed): replica \(r + 1): assignment \(a.id) of a non-live item is listed"
    }
  }
  // A replica loaded from a snapshot equals its source and still ignores old ops.
  do {
    var loaded = try Board(snapshot: world.boards[0].encodedSnapshot(), replica: ReplicaID(9))
    loaded.checkInvariants()
    if fingerprint(loaded) != expected { return "seed \(seed): snapshot round trip differs" }
    for op in world.universe where loaded.apply(op) { return "seed \(seed): loaded snapshot re-applied \(op)" }
  } catch {
    return "seed \(seed): snapshot failed to load: \(error)"
  }
  return nil
}

@Suite("Randomized convergence")
struct FuzzTests {
  static var seedCount: Int { Int(ProcessInfo.processInfo.environment["REORDER_FUZZ_SEEDS"] ?? "") ?? 2000 }
  static let chunks = 4

  @Test(
    "Replicas with random intents, partial syncs, duplicates and reordering converge",
    arguments: 0..<FuzzTests.chunks)
  func randomReplicasConverge(chunk: Int) {
    var seed = UInt64(chunk)
    while seed < UInt64(FuzzTests.seedCount) {
      if let failure = fuzzFailure(seed: seed) {
        Issue.record(Comment(rawValue: failure))
        return
      }
      seed += UInt64(FuzzTests.chunks)
    }
  }
}

@Suite("Randomized convergence on long lists")
struct LongListFuzzTests {
  @Test("Replicas editing a 3,000-item list offline (order-tree splits at every level) converge", arguments: 0..<2)
  func longListsConverge(seed: UInt64) throws {
    var rng = SplitMix64(seed: 1000 + seed)
    var origin = Board(replica: ReplicaID(1))
    var baseOps = [try origin.createList("L", title: "", layout: .list, after: nil)]
    var previous: ItemID? = nil
    for _ in 0..<3000 {
      let op = try origin.insert(list: "L", after: previous, before: nil, fields: [:])
      previous = op.item
      baseOps.append(op)
    }
    var boards: [Board] = [origin]
    for r in 2...3 {
      var b = Board(replica: ReplicaID(UInt64(r)))
      for op in baseOps { b.apply(op) }
      boards.append(b)
    }
    var made: [[Op]] = [[], [], []]
    for _ in 0..<1500 {
      let r = rng.below(3)
      var b = boards[r]
      let n = b.count(in: "L")
      let item = b.item(at: rng.below(n), in: "L")!
      let anchor = b.item(at: rng.below(n), in: "L")
      let roll = rng.below(100)
      let op: Op
      if roll < 70 {
        op = try b.move(item, to: "L", after: rng.chance(50) ? anchor : nil, before: rng.chance(50) ? anchor : nil)
      } else if roll < 85 {
        op = try b.insert(list: "L", after: anchor, before: nil, fields: [:])
      } else {
        op = try b.delete(item)
      }
      boards[r] = b
      made[r].append(op)
      if rng.chance(3) {  // an occasional partial sync, shuffled
        let source = rng.below(3)
        var batch = Array(made[source].suffix(20))
        batch.shuffle(using: &rng)
        for op in batch { boards[(source + 1) % 3].apply(op) }
      }
    }
    for r in 0..<3 {
      var all = made.flatMap { $0 }
      all.shuffle(using: &rng)
      for op in all { boards[r].apply(op) }
      boards[r].checkInvariants()
    }
    #expect(boards[0].items(in: "L") == boards[1].items(in: "L"))
    #expect(boards[1].items(in: "L") == boards[2].items(in: "L"))
    #expect(fingerprint(boards[0]) == fingerprint(boards[2]))
    let loaded = try Board(snapshot: boards[1].encodedSnapshot(), replica: ReplicaID(4))
    loaded.checkInvariants()
    #expect(loaded.items(in: "L") == boards[0].items(in: "L"))
  }
}
