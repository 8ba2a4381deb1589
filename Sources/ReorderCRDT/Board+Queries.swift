/// A visible list.
public struct ListInfo: Hashable, Sendable {
  /// The list id.
  public var id: ListID
  /// Its title.
  public var title: String
  /// How it is shown.
  public var layout: Layout
  /// Makes a list description.
  public init(id: ListID, title: String, layout: Layout) {
    self.id = id
    self.title = title
    self.layout = layout
  }
}

/// What is known of an item.
public struct ItemInfo: Hashable, Sendable {
  /// The item id.
  public var id: ItemID
  /// The list of its place (its latest place when deleted).
  public var list: ListID
  /// False when deleted.
  public var alive: Bool
  /// Its fields.
  public var fields: [String: FieldValue]
  /// Makes an item description.
  public init(id: ItemID, list: ListID, alive: Bool, fields: [String: FieldValue]) {
    self.id = id
    self.list = list
    self.alive = alive
    self.fields = fields
  }
}

/// One live assignment of an item onto a target item.
public struct Assignment: Hashable, Sendable {
  /// The assignment id.
  public var id: AssignmentID
  /// The assigned item (e.g. a food).
  public var item: ItemID
  /// The target item (e.g. a person).
  public var target: ItemID
  /// Makes an assignment description.
  public init(id: AssignmentID, item: ItemID, target: ItemID) {
    self.id = id
    self.item = item
    self.target = target
  }
}

/// Derived totals of a target: how many live assignments, and the sum of a numeric field of their
/// items.
public struct Totals: Hashable, Sendable {
  /// Number of live assignments onto the target.
  public var count: Int
  /// Sum of the numeric field over the assigned items (non-numeric or missing count as 0, and so do
  /// numbers beyond ±``maxSummand``): always finite.
  public var sum: Double
  /// The largest magnitude of a summed number (1e15): any count of them sums to a finite number.
  public static let maxSummand = 1e15
  /// Makes totals.
  public init(count: Int, sum: Double) {
    self.count = count
    self.sum = sum
  }
}

/// Queries. "Visible" = alive, and (for lists) not deleted. Items of a deleted list stay in it (and
/// in ``items(in:)`` of that list) but the list is not in ``lists``.
///
/// An item is *live* when it is alive AND its list is alive: a derived property of two LWW registers,
/// so it is the same on every replica whatever the order of delivery. Items of a deleted list are not
/// live: ``index(of:)`` is nil for them, and their assignments are not live (not listed, not counted).
extension Board {
  /// The visible lists in order.
  /// - Complexity: O(L log L).
  public var lists: [ListInfo] {
    var out: [ListInfo] = []
    positions.forEachVisibleOwner(0) { owner in
      let l = listTable[Int(owner)]
      out.append(ListInfo(id: l.id, title: l.title, layout: l.layout))
    }
    return out
  }

  /// A list by id (deleted lists too), or nil.
  public func list(_ id: ListID) -> ListInfo? {
    guard let l = listNumber(id) else { return nil }
    let state = listTable[Int(l)]
    return ListInfo(id: state.id, title: state.title, layout: state.layout)
  }

  /// True when the list exists and is not deleted.
  public func isLive(_ list: ListID) -> Bool {
    guard let l = listNumber(list) else { return false }
    return listTable[Int(l)].alive
  }

  /// The visible index of a live list among ``lists``, or nil.
  /// - Complexity: O(log L).
  public func index(ofList list: ListID) -> Int? {
    guard let l = listNumber(list), listTable[Int(l)].alive else { return nil }
    return positions.rank(listTable[Int(l)].place)
  }

  /// The visible items of a list in order (empty for an unknown list).
  /// - Complexity: O(v log n) for v visible items.
  public func items(in list: ListID) -> [ItemID] {
    guard let l = listNumber(list) else { return [] }
    var out: [ItemID] = []
    out.reserveCapacity(positions.visibleCount((l + 1)))
    positions.forEachVisibleOwner((l + 1)) { owner in out.append(itemIDs[Int(owner)]) }
    return out
  }

  /// Number of visible items in a list.
  /// - Complexity: O(1).
  public func count(in list: ListID) -> Int {
    guard let l = listNumber(list) else { return 0 }
    return positions.visibleCount((l + 1))
  }

  /// The visible item at `index` of a list, or nil when out of range.
  /// - Complexity: O(log n).
  public func item(at index: Int, in list: ListID) -> ItemID? {
    guard let l = listNumber(list), let owner = positions.selectOwner((l + 1), index) else {
      return nil
    }
    return itemIDs[Int(owner)]
  }

  /// Everything known of an item (deleted ones too), or nil when unknown.
  /// - Complexity: O(f) for f fields.
  public func item(_ id: ItemID) -> ItemInfo? {
    guard let i = itemNumber(id) else { return nil }
    let item = itemTable[Int(i)]
    var fields: [String: FieldValue] = [:]
    for f in itemFields[Int(i)] { fields[f.name] = f.value }
    return ItemInfo(id: itemIDs[Int(i)], list: listIDs[Int(item.list)], alive: item.alive, fields: fields)
  }

  /// One field of an item, or nil.
  public func field(_ name: String, of id: ItemID) -> FieldValue? {
    guard let i = itemNumber(id) else { return nil }
    return itemFields[Int(i)].first { $0.name == name }?.value
  }

  /// The list and visible index of a live item (alive, in a live list); nil when deleted, in a
  /// deleted list, or unknown.
  /// - Complexity: O(log n).
  public func index(of item: ItemID) -> (list: ListID, index: Int)? {
    guard let i = itemNumber(item) else { return nil }
    let state = itemTable[Int(i)]
    guard state.alive, listTable[Int(state.list)].alive else { return nil }
    return (listIDs[Int(state.list)], positions.rank(state.place))
  }

  /// Ids of every list known here (deleted too), sorted.
  public var allListIDs: [ListID] { listTable.map(\.id).sorted() }

  /// Number of items ever created here (live and deleted).
  public var itemCount: Int { itemTable.count }

  /// Number of lists ever created here (live and deleted).
  public var listCount: Int { listTable.count }

  /// All item ids known here (deleted too), sorted.
  public var allItems: [ItemID] { itemIDs.sorted() }

  /// Item k is alive and its list is alive.
  @inline(__always)
  func isLiveItemNumber(_ k: Int32) -> Bool {
    let state = itemTable[Int(k)]
    return state.alive && listTable[Int(state.list)].alive
  }

  /// True when the item exists, is alive and its list is alive.
  /// - Complexity: O(1) expected.
  public func isLiveItem(_ item: ItemID) -> Bool {
    guard let i = itemNumber(item) else { return false }
    return isLiveItemNumber(i)
  }

  func isLiveAssignment(_ a: AssignmentState) -> Bool {
    !a.removed && isLiveItemNumber(a.item) && isLiveItemNumber(a.target)
  }

  /// The live assignments (not unassigned, item and target both live), sorted by id.
  /// - Complexity: O(A log A).
  public var assignments: [Assignment] {
    assignmentTable.filter(isLiveAssignment).sorted { $0.id < $1.id }.map {
      Assignment(id: $0.id, item: itemIDs[Int($0.item)], target: itemIDs[Int($0.target)])
    }
  }

  /// A live assignment by id, or nil.
  public func assignment(_ id: AssignmentID) -> Assignment? {
    guard let a = assignmentIndex[id], isLiveAssignment(assignmentTable[Int(a)]) else { return nil }
    let s = assignmentTable[Int(a)]
    return Assignment(id: s.id, item: itemIDs[Int(s.item)], target: itemIDs[Int(s.target)])
  }

  /// Totals of a target over its live assignments: count, and the sum of `sumField` (numbers only).
  /// Numbers beyond ±``Totals/maxSummand`` (which no intent makes, but a remote op could) count as 0,
  /// so the sum is always finite.
  /// - Complexity: O(assignments ever made onto the target).
  public func totals(of target: ItemID, sumField: String = "price") -> Totals {
    guard let t = itemNumber(target), let list = assignmentsByTarget[t] else { return Totals(count: 0, sum: 0) }
    var totals = Totals(count: 0, sum: 0)
    for a in list where isLiveAssignment(assignmentTable[Int(a)]) {
      totals.count += 1
      let item = assignmentTable[Int(a)].item
      if case .number(let d)? = itemFields[Int(item)].first(where: { $0.name == sumField })?.value,
        abs(d) <= Totals.maxSummand
      {
        totals.sum += d
      }
    }
    return totals
  }
}
