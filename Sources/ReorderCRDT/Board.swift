/// The replicated state of one board: lists, items, assignments. A pure value: no I/O, no clock, no
/// randomness; the replica id is given and the Lamport clock is part of the state.
///
/// Model:
/// - Lists live in one sequence (sequence 0); each list has its own item sequence. Sequences are
///   Fugue trees (no interleaving of concurrent runs) whose positions have fixed-size ids
///   `(replica, counter)` (``PositionStore``).
/// - An item has a *place* — ONE last-writer-wins register holding `(list, position)` — an *alive*
///   LWW register, and one LWW register per field. A list has a place, an alive and an info
///   (title + layout) register. LWW order is the op id `(lamport, replica)`, larger wins.
/// - A move makes a new position at the destination and points the place at it if it wins; old
///   positions stay as tombstones that can still anchor. So a delete (alive := false) wins over a
///   concurrent move, and a later restore brings the item back at its latest place.
/// - Assignments are an add-wins set: each assign has its own id; an unassign removes that id only.
/// - Ops are applied at most once (positions and `seenOps` remember them). An op whose
///   dependencies (parent position, item, list, assignment) are not here yet waits in a causal
///   buffer and is applied as soon as they arrive, so delivery may be reordered and duplicated.
///
/// Invariants (``checkInvariants()`` verifies them all):
/// 1. Each sequence's order tree is a B+tree over the full order with consistent parent links, all
///    leaves at one depth, a leaf chain in order, and per-child counts = visible nodes below.
/// 2. The order tree's leaf order equals the Fugue tree's traversal (left children by ascending id, node,
///    right children by ascending id), starting with the sentinel.
/// 3. A node is visible iff it is the place of a live item (sequence > 0) or live list (sequence 0).
///    So every live item appears exactly once, in exactly one list.
/// 4. Every item's place node is in its list's item sequence and has the id of the place stamp.
/// 5. `index` maps every position id to its node; buffered ops are exactly those not applied.
/// 6. The Lamport clock is ≥ every applied op's counter.
public struct Board: Sendable {
  /// This replica's id (ties between equal Lamport clocks go to the larger id).
  public private(set) var replica: ReplicaID
  /// This replica's Lamport clock: the largest op counter made or applied here.
  public internal(set) var lamport: UInt64 = 0

  var positions = PositionStore()

  struct ListState: Sendable {
    var id: ListID
    /// The list's item sequence.
    var sequence: Int32
    var title: String
    var layout: Layout
    var infoStamp: OpID
    /// The list's node in sequence 0.
    var place: Int32
    var placeStamp: OpID
    var alive: Bool
    var aliveStamp: OpID
  }

  struct FieldRegister: Sendable {
    var name: String
    var value: FieldValue
    var stamp: OpID
  }

  /// An item's registers, except its id (`itemIDs`) and fields (`itemFields`): plain data, so
  /// reading it from the table copies no references.
  struct ItemState: Sendable {
    var list: Int32
    var place: Int32
    var placeStamp: OpID
    var alive: Bool
    var aliveStamp: OpID
  }

  struct AssignmentState: Sendable {
    var id: AssignmentID
    var item: Int32
    var target: Int32
    var stamp: OpID
    var removed: Bool
  }

  /// What a buffered op is waiting for.
  enum Dependency: Hashable, Sendable {
    case position(PositionID)
    case item(ItemID)
    case list(ListID)
    case assignment(AssignmentID)
  }

  var listTable: [ListState] = []
  /// `listTable[k].id`, kept apart so lookups by id need not copy list states.
  var listIDs: [ListID] = []
  /// The id of item k.
  var itemIDs: [ItemID] = []
  /// The field registers of item k, sorted by name.
  var itemFields: [[FieldRegister]] = []
  var listIndex: [ListID: Int32] = [:]
  var itemTable: [ItemState] = []
  var itemIndex = IDIndex()
  var assignmentTable: [AssignmentState] = []
  var assignmentIndex: [AssignmentID: Int32] = [:]
  /// Target item → its assignments (removed ones included).
  var assignmentsByTarget: [Int32: [Int32]] = [:]
  /// Ids of applied ops that create no position (positions remember the others).
  var seenOps: Set<OpID> = []
  /// Ops waiting for a dependency.
  var pending: [Dependency: [Op]] = [:]
  var pendingIDs: Set<OpID> = []

  /// An empty board (no lists) for `replica`.
  public init(replica: ReplicaID) {
    self.replica = replica
    _ = positions.addSequence()
  }

  /// The number of a list: a linear scan while the board has few lists (cheaper than hashing the
  /// id), the dictionary beyond.
  @inline(__always)
  func listNumber(_ id: ListID) -> Int32? {
    if listIDs.count <= 8 {
      for k in listIDs.indices where listIDs[k] == id { return Int32(k) }
      return nil
    }
    return listIndex[id]
  }

  /// The number of an item, or nil.
  @inline(__always)
  func itemNumber(_ id: ItemID) -> Int32? { itemIndex.find(id, keys: itemIDs) }

  /// Number of ops waiting in the causal buffer for a dependency.
  public var pendingCount: Int { pendingIDs.count }

  /// Ops waiting in the causal buffer, in id order.
  public var pendingOps: [Op] { pending.values.flatMap { $0 }.sorted { $0.id < $1.id } }
}
