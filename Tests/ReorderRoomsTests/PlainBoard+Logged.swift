@testable import ReorderRooms

/// The reference model as a `LoggedBoard`: an op is made as its resolved op on the state it was
/// made on (positions as indices), and applied as it is. One node orders each op right after the
/// ones it was made after, so that state is the one it applies to.
extension PlainBoard: LoggedBoard {
  public mutating func make(_ intent: Intent, ids: GeneratedIDs) throws(ProtocolError) -> [UInt8] {
    try resolve(intent, ids: ids).encoded()
  }

  public mutating func applyLogged(_ logged: [UInt8]) throws -> JSONValue {
    let op = try JSONValue.parse(logged)
    try apply(op)
    return op
  }

  /// No clock: the ids an op makes are the ones it was made with.
  public var clock: UInt64 { 0 }

  public mutating func advanceClock(to counter: UInt64) {}
}
