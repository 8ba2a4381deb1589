/// The op ids a room remembers, for idempotency: each op key (`OpRecord.key(client:id:)`) with the
/// seq its op got, for the latest `limit` keys remembered; the oldest is forgotten first.
///
/// Invariant: every key of `seqs` is in `order[head...]`; `order.count - head <= limit` after
/// each `remember`.
struct OpIDWindow: Sendable {
  /// How many keys are kept (`RoomLimits.rememberedOpIDs`).
  let limit: Int
  private var seqs: [String: UInt64] = [:]
  /// Keys in the order they were first remembered; those before `head` are forgotten.
  private var order: [String] = []
  private var head = 0

  /// An empty window of `limit` keys.
  init(limit: Int) { self.limit = limit }

  /// The seq of the op with this key, if remembered.
  subscript(key: String) -> UInt64? { seqs[key] }

  /// Remembers `key` → `seq`, forgetting the oldest key beyond `limit`. Amortized O(1): the
  /// forgotten keys' slots are dropped once they are most of `order`.
  mutating func remember(_ key: String, seq: UInt64) {
    if seqs.updateValue(seq, forKey: key) == nil { order.append(key) }
    if order.count - head > limit {
      seqs[order[head]] = nil
      head += 1
      if head > 4_096 && head * 2 > order.count {
        order.removeFirst(head)
        head = 0
      }
    }
  }

  /// Forgets the keys whose seq is above `seq` (ops that were not stored) and returns them with
  /// their seqs, in seq order. O(keys remembered).
  mutating func forget(after seq: UInt64) -> [(key: String, seq: UInt64)] {
    let lost = seqs.filter { $0.value > seq }.sorted { $0.value < $1.value }.map { (key: $0.key, seq: $0.value) }
    for (key, _) in lost { seqs[key] = nil }
    return lost
  }

  /// The key remembered for `seq` that starts with `prefix` (a client's keys), if any. O(keys).
  func key(seq: UInt64, prefix: String) -> String? {
    seqs.first { $0.value == seq && $0.key.hasPrefix(prefix) }?.key
  }

  /// Makes room for `count` keys (a load remembering that many).
  mutating func reserveCapacity(_ count: Int) {
    seqs.reserveCapacity(count)
    order.reserveCapacity(count)
  }
}
