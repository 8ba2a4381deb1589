import TestRandom
import Testing

@testable import ReorderRooms

/// The CRDT board adapter and the plain array model must resolve the same intents the same way.
@Suite("Board models agree")
struct BoardModelsAgreeTests {
  /// A random intent over the ids that exist (plus a few that do not).
  func randomIntent(_ rng: inout SplitMix64, board: JSONValue, step: Int) -> Intent {
    var lists: [String] = []
    var items: [String] = []
    if case .array(let ls)? = board["lists"] {
      for l in ls {
        guard let id = l["id"]?.stringValue else { continue }
        lists.append(id)
        if case .array(let its)? = l["items"] { items += its.compactMap { $0["id"]?.stringValue } }
      }
    }
    var assignments: [String] = []
    if case .array(let asg)? = board["assignments"] { assignments = asg.compactMap { $0["id"]?.stringValue } }
    func pick(_ ids: [String], ghost: String) -> String {
      ids.isEmpty || rng.below(10) == 0 ? ghost : ids[rng.below(ids.count)]
    }
    func anchor(_ ids: [String]) -> String? { ids.isEmpty || rng.below(3) == 0 ? nil : ids[rng.below(ids.count)] }
    let list = pick(lists, ghost: "no-list")
    switch rng.below(lists.isEmpty ? 1 : 10) {
    case 0: return .createList(list: "l\(step)", title: "L", layout: "list", after: anchor(lists))
    case 1, 2:
      return .insert(
        list: list, after: anchor(items), before: anchor(items),
        fields: ["title": .string("t\(step)"), "price": .number(Double(step))],
        item: "i\(step)")
    case 3, 4: return .move(item: pick(items, ghost: "ghost"), list: list, after: anchor(items), before: anchor(items))
    case 5: return .delete(item: pick(items, ghost: "ghost"))
    case 6: return .set(item: pick(items, ghost: "ghost"), field: "title", value: .string("s\(step)"))
    case 7:
      return rng.below(2) == 0 || assignments.isEmpty
        ? .assign(item: pick(items, ghost: "ghost"), target: pick(items, ghost: "ghost"))
        : .unassign(assignment: assignments[rng.below(assignments.count)])
    case 8: return .restore(item: "i\(rng.below(step))")
    default: return .moveList(list: list, after: anchor(lists))
    }
  }

  @Test(
    "Same intents, same resolved ops, same rejections, same boards; snapshots and log replay restore them",
    arguments: Array(UInt64(1)...8))
  func sameResults(seed: UInt64) throws {
    var rng = SplitMix64(seed: seed)
    var plain: any RoomBoard = PlainBoard()
    var crdt: any RoomBoard = CRDTRoomBoard()
    var plainLog: [[UInt8]] = []
    var crdtLog: [[UInt8]] = []
    for step in 1...300 {
      let intent = randomIntent(&rng, board: plain.boardJSON(), step: step)
      let ids = GeneratedIDs(seq: UInt64(step))
      let a = Result { () throws(ProtocolError) in try plain.perform(intent, ids: ids) }.map { r in
        plainLog.append(r.logged)
        return r.resolved
      }
      let b = Result { () throws(ProtocolError) in try crdt.perform(intent, ids: ids) }.map { r in
        crdtLog.append(r.logged)
        return r.resolved
      }
      switch (a, b) {
      case (.success(let x), .success(let y)): #expect(x == y, "step \(step) \(intent): \(x.jsonText) vs \(y.jsonText)")
      case (.failure(let x), .failure(let y)): #expect(x.code == y.code, "step \(step) \(intent): \(x) vs \(y)")
      default: Issue.record("step \(step) \(intent): plain \(a) vs crdt \(b)")
      }
      if plain.boardJSON() != crdt.boardJSON() {
        Issue.record(
          "boards differ after step \(step) \(intent):\n\(plain.boardJSON().jsonText)\n\(crdt.boardJSON().jsonText)")
        return
      }
    }
    for (board, log, factory) in [(plain, plainLog, RoomBoardFactory.plain), (crdt, crdtLog, CRDTRoomBoard.factory)] {
      #expect(try factory.restore(board.snapshot()).boardJSON() == board.boardJSON())
      var replayed = factory.empty()
      for logged in log { try replayed.replay(logged) }
      #expect(replayed.boardJSON() == board.boardJSON())
      #expect(replayed.itemCount == board.itemCount)
    }
  }
}
