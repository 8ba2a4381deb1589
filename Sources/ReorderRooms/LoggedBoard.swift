/// A room board whose ops are put in order by the room's log: an intent becomes an op made on this
/// replica but not applied; every op, this node's and the others', is applied later in the log's
/// order and resolved then, so every node resolves the same `applied.op` for a seq.
public protocol LoggedBoard: RoomBoard {
  /// Validates `intent` as `perform` does and returns the bytes to log: an op made on this
  /// replica's state, not applied. Throws with nothing changed.
  mutating func make(_ intent: Intent, ids: GeneratedIDs) throws(ProtocolError) -> [UInt8]
  /// Applies logged bytes (any replica's, in log order) and returns the resolved op (`applied.op`)
  /// describing what changed for a client. Every op resolves to something a client can apply, even
  /// one that lost to a concurrent op (see `CRDTRoomBoard+Resolve.swift`).
  /// - Throws: when the bytes are not an op.
  mutating func applyLogged(_ logged: [UInt8]) throws -> JSONValue
  /// The replica's clock: the largest op counter made or applied here.
  var clock: UInt64 { get }
  /// Moves the clock on to at least `counter` (`Board.advanceClock(to:)`): after ops were made on a
  /// copy of this board, the ops made here do not reuse their ids.
  mutating func advanceClock(to counter: UInt64)
}
