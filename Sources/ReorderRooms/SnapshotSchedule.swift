/// When a room snapshots its board: the ops applied since its last snapshot, and the size of that
/// snapshot (a large board snapshots less often). Pure.
struct SnapshotSchedule: Sendable {
  /// Ops applied since the last snapshot (taken, or the one the room was loaded from).
  private(set) var opsSince = 0
  /// Size of the room's last snapshot (taken or loaded), in bytes.
  private(set) var lastBytes = 0

  /// An op was applied (or restored after the snapshot a load started from).
  mutating func opApplied() { opsSince += 1 }

  /// A snapshot of `bytes` bytes was taken: counts start again.
  mutating func taken(bytes: Int) {
    opsSince = 0
    lastBytes = bytes
  }

  /// The room was loaded from a snapshot of `bytes` bytes; the ops restored after it count.
  mutating func loaded(bytes: Int) { lastBytes = bytes }

  /// Nothing applied so far may be snapshotted (its ops are not all stored: a rebuild).
  mutating func forgetOps() { opsSince = 0 }

  /// Ops between two snapshots: `limits.snapshotEvery`, or for a large board one op per
  /// `RoomLimits.snapshotBytesPerOp` bytes of its last snapshot, whichever is more, but never more
  /// ops for the bytes than the windows the store keeps before a snapshot (the catch-up and the
  /// idempotency window, `RoomLoad.remembering`). Encoding a snapshot costs time in proportion to
  /// its size, so this bounds the snapshot work per op, while a reload replays at most that many
  /// ops. Snapshots are compacted, so their size, and with it the interval, is set by the board's
  /// content; the cap keeps the log the store retains (the windows before the latest snapshot plus
  /// one interval) within twice the windows for the largest boards.
  func interval(_ limits: RoomLimits) -> Int {
    max(limits.snapshotEvery, min(lastBytes / RoomLimits.snapshotBytesPerOp, RoomLoad.remembering(limits)))
  }

  /// Whether a snapshot is due at `seq`. A due snapshot waits for the next compaction boundary
  /// (a multiple of `compactEvery`), right after the room compacted there, so that every stored
  /// snapshot (and base) is a compacted board; unless the snapshot interval is shorter than the
  /// compaction interval (`--snapshot-every` below it): then it is taken when due, a board
  /// compacted at the last boundary plus the ops since.
  func isDue(_ limits: RoomLimits, seq: UInt64, compactEvery: UInt64) -> Bool {
    let interval = interval(limits)
    guard opsSince >= interval else { return false }
    guard UInt64(interval) >= compactEvery else { return true }
    return seq % compactEvery == 0
  }
}
