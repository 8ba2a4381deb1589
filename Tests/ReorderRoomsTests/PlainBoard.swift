@testable import ReorderRooms

/// A server-authoritative board kept as plain arrays: the reference model for the room tests.
///
/// Ops apply in arrival order on one replica, so no merge is needed; positions are indices.
/// Invariants: every id in a list's `items` is a live item whose `list` is that list; each live
/// item appears in exactly one list; assignments name existing items.
public struct PlainBoard: RoomBoard {
  struct ListState: Sendable {
    var id: String
    var title: String
    var layout: String
    var items: [String]
  }

  struct ItemState: Sendable {
    var list: String
    var alive: Bool
    var fields: [String: WireFieldValue]
    /// Where it was last placed: (the item before it, its index), for `restore`.
    var lastAfter: String?
    var lastIndex: Int
  }

  var lists: [ListState] = []
  var items: [String: ItemState] = [:]
  var assignments: [(id: String, item: String, target: String)] = []

  /// An empty board.
  public init() {}

  public func hasLiveItem(_ id: String) -> Bool { items[id]?.alive == true }
  public var itemCount: Int { items.count }
  public var listCount: Int { lists.count }

  func listIndex(_ id: String) -> Int? { lists.firstIndex { $0.id == id } }

  /// Visible position of a live item.
  func position(of item: String) -> (list: Int, index: Int)? {
    guard let state = items[item], state.alive, let l = listIndex(state.list),
      let i = lists[l].items.firstIndex(of: item)
    else { return nil }
    return (l, i)
  }

  /// An assignment counts while neither its item nor its target is deleted (as in the CRDT).
  func isLive(_ a: (id: String, item: String, target: String)) -> Bool {
    items[a.item]?.alive == true && items[a.target]?.alive == true
  }

  /// The live assignments, sorted by id.
  var liveAssignments: [(id: String, item: String, target: String)] {
    assignments.filter(isLive).sorted { $0.id < $1.id }
  }

  /// Count and sum of `price` over the live assignments to `target`.
  func totals(of target: String) -> (count: Int, sum: Double) {
    var count = 0
    var sum = 0.0
    for a in assignments where a.target == target && isLive(a) {
      count += 1
      sum += PlainBoard.summand(items[a.item]?.fields["price"])
    }
    return (count, sum)
  }

  /// What a `price` adds to a sum: numbers within ±1e15 (as in the CRDT), else 0.
  static func summand(_ value: WireFieldValue?) -> Double {
    guard case .number(let p)? = value, abs(p) <= WireLimits.maxFieldNumber else { return 0 }
    return p
  }

  static func totalsJSON(_ t: (count: Int, sum: Double)) -> JSONValue {
    .object([("count", .int(t.count)), ("sum", .number(t.sum))])
  }

  static func fieldsJSON(_ fields: [String: WireFieldValue]) -> JSONValue {
    .object(fields.keys.sorted().map { ($0, fields[$0]!.json) })
  }

  public func boardJSON() -> JSONValue {
    let listsJSON: [JSONValue] = lists.map { list in
      .object([
        ("id", .string(list.id)), ("title", .string(list.title)), ("layout", .string(list.layout)),
        (
          "items",
          .array(
            list.items.map { id in
              .object([("id", .string(id)), ("fields", PlainBoard.fieldsJSON(items[id]?.fields ?? [:]))])
            })
        ),
      ])
    }
    let live = liveAssignments
    let assignmentsJSON: [JSONValue] = live.map {
      .object([("id", .string($0.id)), ("item", .string($0.item)), ("target", .string($0.target))])
    }
    var targets = Set(live.map(\.target))
    for (id, item) in items where item.alive && item.fields["role"] == .string("person") { targets.insert(id) }
    let totalsJSON = JSONValue.object(targets.sorted().map { ($0, PlainBoard.totalsJSON(totals(of: $0))) })
    return .object([("lists", .array(listsJSON)), ("assignments", .array(assignmentsJSON)), ("totals", totalsJSON)])
  }
}

extension RoomBoardFactory {
  /// The reference array model.
  static let plain = RoomBoardFactory(empty: { PlainBoard() }, restore: { try PlainBoard(snapshot: $0) })
}
