import ReorderCRDT
import TestRandom
import Testing

/// One replica under random intents against a plain Swift array per list (deleted items stay in
/// the array with a flag, exactly where the CRDT keeps their last place).
@Suite("Reference model")
struct ReferenceModelTests {
  struct Model {
    var lists: [ListID: [(id: ItemID, alive: Bool)]] = [:]

    func visible(_ list: ListID) -> [ItemID] { lists[list, default: []].filter(\.alive).map(\.id) }

    func locate(_ item: ItemID) -> (ListID, Int)? {
      for (list, entries) in lists {
        if let k = entries.firstIndex(where: { $0.id == item }) { return (list, k) }
      }
      return nil
    }

    /// Inserts after `after` (directly), else before `before`, else at the end.
    mutating func place(_ entry: (id: ItemID, alive: Bool), in list: ListID, after: ItemID?, before: ItemID?) {
      var entries = lists[list, default: []]
      if let after {
        entries.insert(entry, at: entries.firstIndex { $0.id == after }! + 1)
      } else if let before {
        entries.insert(entry, at: entries.firstIndex { $0.id == before }!)
      } else {
        entries.append(entry)
      }
      lists[list] = entries
    }
  }

  func run(seed: UInt64, steps: Int, listCount: Int, maxItems: Int) throws {
    var rng = SplitMix64(seed: seed)
    var board = Board(replica: ReplicaID(7))
    var model = Model()
    let listIDs = (0..<listCount).map { ListID("L\($0)") }
    var previous: ListID? = nil
    for l in listIDs {
      _ = try board.createList(l, title: l.rawValue, layout: .list, after: previous)
      model.lists[l] = []
      previous = l
    }
    var items: [ItemID] = []
    for step in 0..<steps {
      let list = listIDs[rng.below(listIDs.count)]
      let inList = model.lists[list]!.map(\.id)
      let after = inList.isEmpty || rng.chance(20) ? nil : inList[rng.below(inList.count)]
      let before = inList.isEmpty || rng.chance(20) ? nil : inList[rng.below(inList.count)]
      let roll = rng.below(100)
      if items.count < maxItems && (items.isEmpty || roll < 30) {
        let op = try board.insert(list: list, after: after, before: before, fields: [:])
        items.append(op.item!)
        model.place((op.item!, true), in: list, after: after, before: before)
      } else if roll < 80 {
        let item = items[rng.below(items.count)]
        _ = try board.move(item, to: list, after: after, before: before)
        let (from, k) = model.locate(item)!
        let entry = model.lists[from]!.remove(at: k)
        if after == item || (after == nil && before == item) {
          // Anchored on itself: the new position is next to the old one, so nothing moves.
          model.lists[from]!.insert(entry, at: k)
        } else {
          model.place(entry, in: list, after: after, before: before)
        }
      } else {
        let item = items[rng.below(items.count)]
        let alive = roll < 90
        _ = alive ? try board.restore(item) : try board.delete(item)
        let (from, k) = model.locate(item)!
        model.lists[from]![k].alive = alive
      }
      if step % 500 == 0 || steps < 500 { board.checkInvariants() }
      guard steps < 500 || step % 100 == 0 else { continue }
      for l in listIDs {
        let expected = model.visible(l)
        #expect(board.items(in: l) == expected, "seed \(seed) step \(step) list \(l)")
        if board.items(in: l) != expected { return }
      }
    }
    board.checkInvariants()
    for l in listIDs {
      for (k, item) in model.visible(l).enumerated() {
        #expect(board.index(of: item)! == (l, k))
        #expect(board.item(at: k, in: l) == item)
      }
    }
  }

  @Test("Random intents on one replica match a plain array", arguments: 0..<20)
  func randomIntentsMatchArray(seed: UInt64) throws {
    try run(seed: seed, steps: 300, listCount: 3, maxItems: 40)
  }

  @Test("A long list (order-tree splits at every level) matches a plain array")
  func longListMatchesArray() throws {
    try run(seed: 99, steps: 9_000, listCount: 1, maxItems: 2_500)
  }
}
