/// A cluster room's ops waiting to be made (`RoomLog.deferred`), in arrival order, with counts
/// by connection and by op key, so that asking whether a connection or a key has an op waiting
/// costs O(1) however many wait (thousands while a node is overloaded: each append answer makes
/// them again, and a pass over the list per op would be quadratic).
///
/// Invariant: `perConnection`, `perKey` and `remakes` count exactly the ops of `list`.
struct DeferredOps: Sendable {
  /// The ops waiting, in the order they are made again.
  private(set) var list: [RoomLog.Deferred] = []
  private var perConnection: [ConnectionHandle: Int] = [:]
  private var perKey: [String: Int] = [:]
  /// Ops waiting to be made again after a `stale` refusal (`after > 0`).
  private var remakes = 0

  /// Whether no op waits.
  var isEmpty: Bool { list.isEmpty }

  /// Whether an op of `connection` waits.
  func waits(_ connection: ConnectionHandle) -> Bool { perConnection[connection] != nil }

  /// Whether an op with `key` waits.
  func contains(key: String) -> Bool { perKey[key] != nil }

  /// Whether an op refused `stale` waits to be made again.
  var hasRemakes: Bool { remakes > 0 }

  /// Adds `op` last.
  mutating func append(_ op: RoomLog.Deferred) { insert(op, at: list.endIndex) }

  /// Adds `op` at `index` of `list`.
  mutating func insert(_ op: RoomLog.Deferred, at index: Int) {
    list.insert(op, at: index)
    count(op, 1)
  }

  /// Takes every op out, in order.
  mutating func takeAll() -> [RoomLog.Deferred] {
    defer { self = DeferredOps() }
    return list
  }

  /// Removes the ops `shouldRemove` picks, keeping the order of the rest.
  mutating func removeAll(where shouldRemove: (RoomLog.Deferred) -> Bool) {
    var kept: [RoomLog.Deferred] = []
    kept.reserveCapacity(list.count)
    for op in list {
      if shouldRemove(op) { count(op, -1) } else { kept.append(op) }
    }
    list = kept
  }

  /// Counts `op` in (`change` 1) or out (-1); a count that reaches 0 is removed.
  private mutating func count(_ op: RoomLog.Deferred, _ change: Int) {
    let connections = perConnection[op.connection, default: 0] + change
    perConnection[op.connection] = connections == 0 ? nil : connections
    let keys = perKey[op.key, default: 0] + change
    perKey[op.key] = keys == 0 ? nil : keys
    if op.after > 0 { remakes += change }
  }
}
