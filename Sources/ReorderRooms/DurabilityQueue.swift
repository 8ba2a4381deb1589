/// A room's ops that were ordered but are not yet durable, with their `applied` frames, and the
/// last seq the store reported durable. Pure.
///
/// Invariant (with `Room.seq`): `frames` holds exactly the seqs `durableSeq + 1 … seq`, in order.
/// An op ordered on one node waits here until its room's store write is durable; an entry the log
/// made durable (a cluster's, a load's) never waits.
struct DurabilityQueue: Sendable {
  /// The last seq the store reported durable.
  private(set) var durableSeq: UInt64 = 0
  /// The frames waiting, in seq order.
  private(set) var frames: [(seq: UInt64, frame: [UInt8])] = []

  /// Whether nothing waits.
  var isEmpty: Bool { frames.isEmpty }

  /// The op at `seq` (the room's next) waits for the store with its `applied` frame.
  mutating func wait(seq: UInt64, frame: [UInt8]) {
    assert(seq > (frames.last?.seq ?? durableSeq), "ops wait in seq order")
    frames.append((seq, frame))
  }

  /// Everything up to `seq` is durable, and nothing waits (a load, an entry the log made durable).
  mutating func isDurable(at seq: UInt64) { durableSeq = seq }

  /// The frame of the waiting op at `seq`, if it waits.
  func frame(seq: UInt64) -> [UInt8]? { frames.first { $0.seq == seq }?.frame }

  /// The waiting op at `seq` (the next to release) is durable: `durableSeq` moves to it. The frames
  /// released so far are dropped by `dropReleased`.
  mutating func released(_ seq: UInt64) { durableSeq = seq }

  /// Drops the first `count` frames, released by `released(_:)`.
  mutating func dropReleased(_ count: Int) { frames.removeFirst(count) }
}
