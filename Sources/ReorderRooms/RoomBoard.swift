/// Ids the room hands to an intent that creates something without a client-chosen id.
public struct GeneratedIDs: Sendable, Equatable {
  /// What follows each id's prefix: the op's seq, or a node's tag, load and count (written out only
  /// when an op takes an id: most ops, moves, take none).
  enum Stem: Sendable, Equatable {
    case seq(UInt64)
    case made(tag: String, load: UInt64, count: UInt64)
  }

  let stem: Stem

  /// For `insert` without `item`.
  public var item: String { "_i" + suffix }
  /// For `assign`.
  public var assignment: String { "_a" + suffix }
  /// For `createList` without `list`.
  public var list: String { "_l" + suffix }

  var suffix: String {
    switch stem {
    case .seq(let seq): return String(seq)
    case .made(let tag, let load, let count):
      return tag + "." + String(load, radix: 36) + "." + String(count, radix: 36)
    }
  }

  /// Server-made ids for the op that will get `seq` (prefixed with `_`, which clients may not use).
  public init(seq: UInt64) { stem = .seq(seq) }

  /// Ids a node makes before the op has a seq (`RoomLog.nextIDs()`).
  init(tag: String, load: UInt64, count: UInt64) { stem = .made(tag: tag, load: load, count: count) }
}

/// The replicated board of one room, as the room state machine needs it.
///
/// `CRDTRoomBoard` adapts `ReorderCRDT.Board`; the tests hold `PlainBoard`, a server-authoritative
/// array model used as a reference. Both produce the same resolved ops for the same intents.
public protocol RoomBoard: Sendable {
  /// Validates `intent`, applies it, and returns the bytes to log (replayable by `replay`) and the
  /// resolved op for `applied.op`. Throws with nothing changed.
  mutating func perform(_ intent: Intent, ids: GeneratedIDs) throws(ProtocolError) -> (
    logged: [UInt8], resolved: JSONValue
  )
  /// Re-applies logged bytes from `perform` (loading a room).
  mutating func replay(_ logged: [UInt8]) throws
  /// The full resolved state for `welcome.board`.
  func boardJSON() -> JSONValue
  /// `boardJSON().encoded()` (a board may write it without building the value).
  func encodedBoardJSON() -> [UInt8]
  /// Bytes for a snapshot; `init(snapshot:)` restores it.
  func snapshot() -> [UInt8]
  /// Drops what only the board's history needs (keeping everything it shows and everything later
  /// intents may refer to) and returns `snapshot()` of the result. The room calls it when it takes
  /// a snapshot, so a snapshot's size is set by the board's content; it is correct because the room
  /// makes every later op itself (see docs/CRDT.md, "Compaction").
  mutating func compactedSnapshot() -> [UInt8]
  /// Compacts as `compactedSnapshot()` does, without returning the bytes: a cluster replica
  /// compacts at agreed seqs (docs/CLUSTER.md, "Compaction at agreed seqs").
  mutating func compact()
  /// Whether an item with this id exists (alive).
  func hasLiveItem(_ id: String) -> Bool
  /// Items ever created in the room (live and deleted).
  var itemCount: Int { get }
  /// Lists in the room.
  var listCount: Int { get }
}

extension RoomBoard {
  /// A board with no history to drop: its plain snapshot.
  public mutating func compactedSnapshot() -> [UInt8] { snapshot() }
  /// A board with no history to drop: nothing.
  public mutating func compact() {}
  /// The value, encoded.
  public func encodedBoardJSON() -> [UInt8] { boardJSON().encoded() }
}

/// Builds the boards of rooms: an empty one, or one restored from a snapshot.
public struct RoomBoardFactory: Sendable {
  /// A new empty board.
  public var empty: @Sendable () -> any LoggedBoard
  /// A board restored from snapshot bytes.
  public var restore: @Sendable ([UInt8]) throws -> any LoggedBoard

  /// A factory from two closures.
  public init(
    empty: @escaping @Sendable () -> any LoggedBoard,
    restore: @escaping @Sendable ([UInt8]) throws -> any LoggedBoard
  ) {
    self.empty = empty
    self.restore = restore
  }
}
