import Foundation
import ReorderCRDT
import TestRandom
import Testing

/// One random intent with the same arguments on every board of `boards` (all have the same visible
/// state, clock and replica id, so they all make an op with the same id, or all refuse).
func sameIntent(_ boards: inout [Board], _ rng: inout SplitMix64) {
  let lists = boards[0].lists.map(\.id)
  let items = boards[0].allItems
  let roll = rng.below(100)
  let list = lists[rng.below(lists.count)]
  let inList = items.filter { boards[0].item($0)?.list == list }
  let after = inList.isEmpty || rng.chance(20) ? nil : inList[rng.below(inList.count)]
  let before = inList.isEmpty || rng.chance(50) ? nil : inList[rng.below(inList.count)]
  let item = items.isEmpty ? nil : items[rng.below(items.count)]
  let value = FieldValue.number(Double(rng.below(50)))
  var made: [Op?] = []
  for k in boards.indices {
    do {
      switch roll {
      case 0..<15: made.append(try boards[k].insert(list: list, after: after, before: before, fields: ["price": value]))
      case 15..<75:
        guard let item else { return }
        made.append(try boards[k].move(item, to: list, after: after, before: before))
      case 75..<83:
        guard let item else { return }
        made.append(try boards[k].delete(item))
      case 83..<90:
        guard let item else { return }
        made.append(try boards[k].restore(item))
      case 90..<95:
        guard let item else { return }
        made.append(try boards[k].set(item, field: "price", value: value))
      default:
        guard let item, let target = after else { return }
        made.append(try boards[k].assign(item, to: target, assignment: nil))
      }
    } catch {
      made.append(nil)
    }
  }
  // The ops differ in their anchors (the trees differ), never in whether the intent was refused.
  precondition(made.allSatisfy { ($0 == nil) == (made[0] == nil) }, "one board refused, another did not: \(made)")
}

/// A board made by replica 1: lists L1 and L2, `items` items in L1, then `moves` random moves
/// (some between the lists) and a few deletes.
func movedBoard(items: Int, moves: Int, seed: UInt64) throws -> Board {
  var rng = SplitMix64(seed: seed)
  var b = Board(replica: ReplicaID(1))
  _ = try b.createList("L1", title: "One", layout: .list, after: nil)
  _ = try b.createList("L2", title: "Two", layout: .grid, after: "L1")
  var previous: ItemID? = nil
  for k in 0..<items {
    previous = try b.insert(list: "L1", after: previous, before: nil, fields: ["title": .string("item \(k)")]).item
  }
  for _ in 0..<moves {
    let from: ListID = rng.chance(90) ? "L1" : "L2"
    let n = b.count(in: from)
    guard n > 0, let item = b.item(at: rng.below(n), in: from) else { continue }
    let to: ListID = rng.chance(90) ? "L1" : "L2"
    let m = b.count(in: to)
    let anchor = m > 0 ? b.item(at: rng.below(m), in: to) : nil
    _ = try b.move(item, to: to, after: anchor == item ? nil : anchor, before: nil)
  }
  for _ in 0..<(items / 20) {
    if let item = b.item(at: rng.below(b.count(in: "L1")), in: "L1") { _ = try b.delete(item) }
  }
  return b
}

@Suite("Compaction")
struct CompactionTests {
  /// Random worlds per run: 200 by default; `REORDER_COMPACTION_SEEDS=20000` for a long run.
  static var worldCount: Int { Int(ProcessInfo.processInfo.environment["REORDER_COMPACTION_SEEDS"] ?? "") ?? 200 }

  @Test("Compacting after moves keeps every visible result and only the places of items and lists")
  func compactionKeepsVisibleState() throws {
    var b = try movedBoard(items: 50, moves: 2_000, seed: 7)
    let before = fingerprint(b)
    #expect(b.positionCount > 2_000)
    b.compact()
    b.checkInvariants()
    #expect(fingerprint(b) == before)
    #expect(b.positionCount == 50 + 2, "one position per item and per list")
    let loaded = try Board(snapshot: b.encodedSnapshot(), replica: ReplicaID(1))
    loaded.checkInvariants()
    #expect(fingerprint(loaded) == before)
  }

  @Test("Compaction is a fixed point: its bytes are the compacted board's snapshot, and again the same")
  func compactionIsIdempotent() throws {
    var b = try movedBoard(items: 30, moves: 500, seed: 3)
    let bytes = b.compactedSnapshot()
    #expect(bytes == b.encodedSnapshot())
    var again = b
    #expect(again.compactedSnapshot() == bytes)
  }

  @Test("A deleted item keeps its place through compaction: it anchors, and a restore brings it back there")
  func deletedItemsKeepTheirPlace() throws {
    var b = makeBase(["A", "B", "C", "D"])[0]
    _ = try b.move("A", to: "L1", after: "C", before: nil)
    _ = try b.delete("C")
    #expect(names(b) == "B A D")
    b.compact()
    b.checkInvariants()
    _ = try b.move("D", to: "L1", after: "C", before: nil)
    #expect(names(b) == "B D A")
    _ = try b.restore("C")
    #expect(names(b) == "B C D A")
    b.checkInvariants()
  }

  @Test("Compaction keeps the Lamport clock and no applied op ids, so later ops get fresh ids")
  func clockSurvives() throws {
    var b = try movedBoard(items: 10, moves: 100, seed: 1)
    let clock = b.lamport
    b.compact()
    #expect(b.lamport == clock)
    let op = try b.move(b.item(at: 0, in: "L1")!, to: "L1", after: nil, before: nil)
    #expect(op.id.counter == clock + 1)
  }

  @Test("A buffered op keeps the position it hangs from through compaction")
  func bufferedOpKeepsItsParent() throws {
    let base = makeBase(["A", "B"])
    var a = base[0]
    var c = base[1]
    let insertX = try a.insert(list: "L1", after: "A", before: nil, fields: [:], item: "X")
    let moveX = try a.move("X", to: "L1", after: "B", before: nil)  // hangs from B's position
    let moveB = try a.move("B", to: "L1", after: nil, before: "A")  // which is now a tombstone
    c.apply(moveB)
    c.apply(moveX)
    #expect(c.pendingCount == 1, "the move waits for X")
    c.compact()
    c.checkInvariants()
    #expect(c.positionCount == 3 + 1, "A, B, the list, and B's old position that the buffered move hangs from")
    c.apply(insertX)
    c.checkInvariants()
    #expect(c.pendingCount == 0)
    #expect(fingerprint(c) == fingerprint(a))
    #expect(names(c) == "B A X")
  }

  @Test(
    "Random worlds: replicas that compact the same state stay identical under the same later ops",
    arguments: 0..<4)
  func replicasCompactingTheSameStateStayIdentical(chunk: Int) throws {
    var seed = UInt64(chunk)
    while seed < UInt64(CompactionTests.worldCount) {
      var world = FuzzWorld(seed: seed)
      world.run(steps: 40)
      world.exchangeEverything()
      let before = fingerprint(world.boards[0])
      for r in world.boards.indices {
        world.boards[r].compact()
        world.boards[r].checkInvariants()
        try #require(fingerprint(world.boards[r]) == before, "seed \(seed): compaction changed replica \(r + 1)")
      }
      let canonical = try world.boards.map { try Board(snapshot: $0.encodedSnapshot(), replica: ReplicaID(9)) }
      for b in canonical {
        b.checkInvariants()
        try #require(b.encodedSnapshot() == canonical[0].encodedSnapshot(), "seed \(seed): compacted states differ")
      }
      // Only ops made after the compaction are exchanged from here on.
      world.universe = []
      world.known = world.known.map { _ in [] }
      world.knownIDs = world.knownIDs.map { _ in [] }
      world.run(steps: 40)
      world.exchangeEverything()
      let after = fingerprint(world.boards[0])
      for (r, b) in world.boards.enumerated() {
        try #require(b.pendingCount == 0, "seed \(seed): replica \(r + 1) buffers ops")
        try #require(fingerprint(b) == after, "seed \(seed): replica \(r + 1) diverged after compaction")
      }
      seed += 4
    }
  }

  @Test("Random intents: a replica compacting now and then shows what an uncompacted twin shows", arguments: 0..<4)
  func compactedReplicaMatchesUncompactedTwin(seed: UInt64) throws {
    var rng = SplitMix64(seed: 100 + seed)
    var boards = [try movedBoard(items: 40, moves: 300, seed: seed)]
    boards.append(boards[0])
    for step in 0..<1_500 {
      sameIntent(&boards, &rng)
      if rng.chance(2) {
        boards[0].compact()
        boards[0].checkInvariants()
      }
      if step % 100 == 0 { boards[0].checkInvariants() }
      try #require(fingerprint(boards[0]) == fingerprint(boards[1]), "seed \(seed): step \(step) differs")
    }
    boards[0].compact()
    #expect(boards[0].positionCount < boards[1].positionCount)
    #expect(fingerprint(boards[0]) == fingerprint(boards[1]))
  }

  @Test("A compacted snapshot's size is set by the content: 100,000 moves on 1,000 items")
  func snapshotSizeAfterManyMoves() throws {
    let fresh = try movedBoard(items: 1_000, moves: 0, seed: 5)
    var b = try movedBoard(items: 1_000, moves: 100_000, seed: 5)
    let full = b.encodedSnapshot().count
    let compacted = b.compactedSnapshot().count
    let content = fresh.encodedSnapshot().count
    print("snapshot of 1,000 items: \(content) B fresh; after 100,000 moves \(full) B, compacted \(compacted) B")
    #expect(compacted * 10 < full)
    #expect(compacted < content * 3 / 2, "within 1.5 × the snapshot of the same items with no history")
  }
}
