/// A room's appends out (`RoomLog.inFlight`), by ticket, with an index by op
/// key: an op looks up whether the same key is out once per op, which must not cost a pass over
/// every append out (thousands while a node is behind).
///
/// Invariant: `byKey[op.key] == ticket` for every `(ticket, op)` of `byTicket` whose key no
/// later append took over, and `byKey` names no ticket that is not out; `byBoundary[b]` counts the
/// appends out whose `until` is b (none is 0).
struct InFlightAppends: Sendable {
  /// The appends out, by ticket.
  private(set) var byTicket: [UInt64: RoomLog.InFlight] = [:]
  private var byKey: [String: UInt64] = [:]
  /// How many appends are out per compaction boundary they must land by (`InFlight.until`): a few
  /// boundaries at most, so asking whether any may still be refused `stale` is cheap.
  private var byBoundary: [UInt64: Int] = [:]

  /// The append out under `ticket`; setting nil removes it.
  subscript(ticket: UInt64) -> RoomLog.InFlight? {
    get { byTicket[ticket] }
    set {
      if let old = byTicket[ticket] {
        if byKey[old.key] == ticket { byKey[old.key] = nil }
        if old.until > 0 { byBoundary[old.until] = byBoundary[old.until] == 1 ? nil : byBoundary[old.until]! - 1 }
      }
      byTicket[ticket] = newValue
      if let newValue {
        byKey[newValue.key] = ticket
        if newValue.until > 0 { byBoundary[newValue.until, default: 0] += 1 }
      }
    }
  }

  /// Removes the append out under `ticket` and returns it.
  mutating func removeValue(forKey ticket: UInt64) -> RoomLog.InFlight? {
    let op = self[ticket]
    self[ticket] = nil
    return op
  }

  /// The ticket of the append out for op key `key`, if one is.
  func ticket(forKey key: String) -> UInt64? { byKey[key] }

  /// Whether an append out was made before the compaction boundary at or before `seq`, so that the
  /// log may still refuse it `stale` (it is then made again after ops made later).
  func mayBeStale(at seq: UInt64) -> Bool { byBoundary.keys.contains { $0 <= seq } }

  /// Whether no append is out.
  var isEmpty: Bool { byTicket.isEmpty }
}
