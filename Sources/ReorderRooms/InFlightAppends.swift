/// A room's appends out in cluster mode (`SharedRoom.inFlight`), by ticket, with an index by op
/// key: an op looks up whether the same key is out once per op, which must not cost a pass over
/// every append out (thousands while a node is behind).
///
/// Invariant: `byKey[op.key] == ticket` for every `(ticket, op)` of `byTicket` whose key no
/// later append took over, and `byKey` names no ticket that is not out.
struct InFlightAppends: Sendable {
  /// The appends out, by ticket.
  private(set) var byTicket: [UInt64: SharedRoom.InFlight] = [:]
  private var byKey: [String: UInt64] = [:]

  /// The append out under `ticket`; setting nil removes it.
  subscript(ticket: UInt64) -> SharedRoom.InFlight? {
    get { byTicket[ticket] }
    set {
      if let old = byTicket[ticket], byKey[old.key] == ticket { byKey[old.key] = nil }
      byTicket[ticket] = newValue
      if let newValue { byKey[newValue.key] = ticket }
    }
  }

  /// Removes the append out under `ticket` and returns it.
  mutating func removeValue(forKey ticket: UInt64) -> SharedRoom.InFlight? {
    let op = self[ticket]
    self[ticket] = nil
    return op
  }

  /// The ticket of the append out for op key `key`, if one is.
  func ticket(forKey key: String) -> UInt64? { byKey[key] }

  /// Whether no append is out.
  var isEmpty: Bool { byTicket.isEmpty }
}
