import ReorderCRDT

/// A room board backed by the replicated `ReorderCRDT.Board`, as one replica (the server node's).
///
/// The server validates more strictly than the CRDT (which must accept any remote op): moves,
/// deletes and assigns need live items, restores need deleted ones, anchors must be items of the
/// target list other than the moved item. Deleted anchors are allowed (their position is kept).
/// Logged bytes are the binary-encoded CRDT op.
public struct CRDTRoomBoard: RoomBoard {
  /// The replica of boards made without one (tests, tools): 1.
  public static let replica = ReplicaID(1)
  var board: Board
  /// Items ever created (live and deleted), kept as a counter: the CRDT has no O(1) count.
  public internal(set) var itemCount: Int
  /// The op `make` made last and its bytes: applied next on one node, it is not decoded again.
  var lastMade: (bytes: [UInt8], op: Op)?

  /// An empty board whose ops are made as `replica`.
  public init(replica: ReplicaID = CRDTRoomBoard.replica) {
    board = Board(replica: replica)
    itemCount = 0
  }

  /// A board restored from `snapshot()` bytes, whose ops are made as `replica`.
  public init(snapshot bytes: [UInt8], replica: ReplicaID = CRDTRoomBoard.replica) throws {
    board = try Board(snapshot: bytes, replica: replica)
    itemCount = board.allItems.count
  }

  /// Builds rooms on this board, as `replica` (each node its own).
  public static func factory(replica: ReplicaID) -> RoomBoardFactory {
    RoomBoardFactory(
      empty: { CRDTRoomBoard(replica: replica) }, restore: { try CRDTRoomBoard(snapshot: $0, replica: replica) })
  }

  /// Builds rooms on this board as replica 1 (tests, tools).
  public static let factory = factory(replica: CRDTRoomBoard.replica)

  public var listCount: Int { board.lists.count }
  public func hasLiveItem(_ id: String) -> Bool { board.isLiveItem(ItemID(id)) }
  public func snapshot() -> [UInt8] { board.encodedSnapshot() }
  /// Compacts the CRDT (its move tombstones and applied op ids go) and returns its snapshot.
  public mutating func compactedSnapshot() -> [UInt8] { board.compactedSnapshot() }
  /// Compacts the CRDT (`Board.compact()`).
  public mutating func compact() { board.compact() }

  public mutating func replay(_ logged: [UInt8]) throws {
    let op = try Op(encoded: logged)
    let isInsert = op.kind == "insert"
    guard board.apply(op) else { throw BoardDataError("a logged op did not apply (duplicate or missing dependency)") }
    if isInsert { itemCount += 1 }
  }

  public func boardJSON() -> JSONValue {
    var targets = Set<String>()
    let lists: [JSONValue] = board.lists.map { list in
      let items: [JSONValue] = board.items(in: list.id).map { id in
        let fields = board.item(id)?.fields ?? [:]
        if fields["role"] == .string("person") { targets.insert(id.rawValue) }
        return .object([("id", .string(id.rawValue)), ("fields", CRDTRoomBoard.fieldsJSON(fields))])
      }
      return .object([
        ("id", .string(list.id.rawValue)), ("title", .string(list.title)), ("layout", .string(list.layout.rawValue)),
        ("items", .array(items)),
      ])
    }
    let assignments = board.assignments
    for a in assignments { targets.insert(a.target.rawValue) }
    let assignmentsJSON: [JSONValue] = assignments.map {
      .object([
        ("id", .string($0.id.rawValue)), ("item", .string($0.item.rawValue)), ("target", .string($0.target.rawValue)),
      ])
    }
    let totals = JSONValue.object(targets.sorted().map { ($0, totalsJSON(ItemID($0))) })
    return .object([("lists", .array(lists)), ("assignments", .array(assignmentsJSON)), ("totals", totals)])
  }

  func totalsJSON(_ target: ItemID) -> JSONValue {
    let t = board.totals(of: target)
    return .object([("count", .int(t.count)), ("sum", .number(t.sum))])
  }

  static func fieldsJSON(_ fields: [String: FieldValue]) -> JSONValue {
    .object(fields.keys.sorted().map { ($0, fieldJSON(fields[$0]!)) })
  }

  static func fieldJSON(_ value: FieldValue) -> JSONValue {
    switch value {
    case .string(let s): return .string(s)
    case .number(let n): return .number(n)
    case .bool(let b): return .bool(b)
    }
  }

  static func fieldValue(_ value: WireFieldValue) -> FieldValue {
    switch value {
    case .string(let s): return .string(s)
    case .number(let n): return .number(n)
    case .bool(let b): return .bool(b)
    }
  }

  static func protocolError(_ error: BoardError) -> ProtocolError {
    switch error {
    case .unknownItem: return ProtocolError(.unknownItem, "no item with this id")
    case .unknownList: return ProtocolError(.unknownList, "no list with this id")
    case .unknownAssignment: return ProtocolError(.unknownAssignment, "no assignment with this id")
    case .duplicateItem: return ProtocolError(.duplicateItem, "an item with this id already exists")
    case .duplicateList: return ProtocolError(.duplicateList, "a list with this id already exists")
    case .duplicateAssignment: return ProtocolError(.invalidValue, "an assignment with this id already exists")
    case .invalidAnchor(let why): return ProtocolError(.invalidAnchor, why)
    case .invalidField(let why): return ProtocolError(.invalidField, why)
    case .invalidID(let why): return ProtocolError(.invalidValue, why)
    case .malformed(let why): return ProtocolError(.invalidValue, why)
    }
  }
}
