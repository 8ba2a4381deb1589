import ReorderRooms

/// Which rooms' summaries are due, and which `board.changed` each change or write reports, in
/// cluster mode (docs/CLUSTER.md, "Board list and webhooks in cluster mode"). Pure: time comes in
/// (`MonotonicClock` seconds, and Unix seconds for the events), Redis' answers come in as
/// `Outcome`s, reports and writes go out as values; `ClusterSummaries` runs it under its lock.
///
/// Rules:
/// - a room that changed is due at once, then at most once per `writeInterval` while it changes;
/// - a write's `Outcome` says whether this node holds the room's lease and the summary stored
///   before; that summary's seq is how far `board.changed` was reported: a write that stored
///   reports from there (or from what this node reported, if later) through the room's seq now;
/// - within `holdSeconds` of a write that found this node holding the lease, a change that
///   follows what it reported is reported at once, unless the room's epoch changed since that
///   write (where a new epoch's reports start is read from the summary stored: 1, or after the
///   ops a PUT seeded and reported on its own node);
/// - a node that does not hold the lease is due again, one interval later, until the stored
///   summary reaches its seq or `takeOverSeconds` passed since its change (by then the lease has
///   lapsed and been taken, by this node or another, or a live holder renewed it);
/// - a room this node stops following gets one last write, then goes, with the lease
///   released if this node holds it.
struct SummaryLedger {
  /// A `board.changed` to queue: ops `fromSeq...toSeq` of `epoch`, applied at `at` (`wall`).
  struct Report: Equatable {
    var room: String
    var epoch: String
    var fromSeq: UInt64
    var toSeq: UInt64
    var at: Double
    var wall: Double
    /// Who made the ops it covers, as this node applied them.
    var actors: [OpActor] = []
  }

  /// A summary to write: the room's figures when it was taken.
  struct Due: Equatable {
    var room: String
    var epoch: String
    var seq: UInt64
    var lists: Int
    var items: Int
    /// When the last change it covers happened.
    var changedAt: Double
    var changedWall: Double
  }

  /// What Redis answered to a write.
  struct Outcome {
    /// This node holds the lease (it took or renewed it).
    var holder: Bool
    /// The summary was stored (only the holder stores).
    var stored: Bool
    /// The summary stored before: its epoch and seq.
    var previous: (epoch: String, seq: UInt64)?
  }

  private struct RoomState {
    var epoch: String
    var seq: UInt64
    var lists: Int
    var items: Int
    var changedAt: Double
    var changedWall: Double
    /// Changed since the last write (or the write failed, or the holder has not covered it yet).
    var dirty = true
    var lastWrite = -Double.infinity
    /// Until when this node surely holds the lease; 0 when it does not.
    var holdUntil = 0.0
    /// `board.changed` was reported through this seq of `epoch`.
    var reported: UInt64 = 0
    /// Whether `reported` is known to be where this epoch's reports stand: false from a change
    /// of epoch until a write reads the stored summary (a PUT's node reported the board's seeded
    /// ops and stored its summary at their last seq).
    var reportedKnown = true
    /// Not followed any more: one more write, then gone.
    var forgotten = false
    /// Who made the ops applied since the last report (`OpActor.maxListed` at most), for the next.
    var actors: [OpActor] = []

    var waiting: Bool { dirty || forgotten }
  }

  let writeInterval: Double
  let holdSeconds: Double
  let takeOverSeconds: Double
  private var rooms: [String: RoomState] = [:]

  /// A ledger with these intervals (seconds).
  init(writeInterval: Double, holdSeconds: Double, takeOverSeconds: Double) {
    self.writeInterval = writeInterval
    self.holdSeconds = holdSeconds
    self.takeOverSeconds = takeOverSeconds
  }

  /// Applying the log took `room` from `fromSeq - 1` to `toSeq`. Returns what to report now, and
  /// whether the room became due (it was not waiting for a write already).
  mutating func changed(
    room: String, epoch: String, fromSeq: UInt64, toSeq: UInt64, lists: Int, items: Int, actors: [OpActor] = [],
    now: Double, wall: Double
  ) -> (report: Report?, becameDue: Bool) {
    let waiting = rooms[room]?.waiting ?? false
    var state =
      rooms[room] ?? RoomState(epoch: epoch, seq: toSeq, lists: lists, items: items, changedAt: now, changedWall: wall)
    if state.epoch != epoch {
      state.epoch = epoch
      state.reported = 0
      state.reportedKnown = false
    }
    state.seq = toSeq
    state.lists = lists
    state.items = items
    state.changedAt = now
    state.changedWall = wall
    state.dirty = true
    state.forgotten = false
    OpActor.merge(actors, into: &state.actors)
    var report: Report?
    if now < state.holdUntil, state.reportedKnown, state.reported + 1 >= fromSeq, toSeq > state.reported {
      report = Report(
        room: room, epoch: epoch, fromSeq: state.reported + 1, toSeq: toSeq, at: now, wall: wall, actors: state.actors)
      state.reported = toSeq
      state.actors = []
    }
    rooms[room] = state
    return (report, !waiting)
  }

  /// `room` is not followed any more. Whether it became due.
  mutating func forget(room: String) -> Bool {
    guard rooms[room] != nil else { return false }
    let waiting = rooms[room]!.waiting
    rooms[room]!.forgotten = true
    return !waiting
  }

  /// When the earliest room is due, or nil when none is.
  func nextDue() -> Double? {
    rooms.values.lazy.filter(\.waiting).map { $0.lastWrite + writeInterval }.min()
  }

  /// The rooms due by `now` (every waiting one with `all`), counted as written now.
  mutating func takeDue(now: Double, all: Bool = false) -> [Due] {
    var due: [Due] = []
    for (room, state) in rooms where state.waiting {
      guard all || state.lastWrite + writeInterval <= now else { continue }
      due.append(
        Due(
          room: room, epoch: state.epoch, seq: state.seq, lists: state.lists, items: state.items,
          changedAt: state.changedAt, changedWall: state.changedWall))
      rooms[room]!.dirty = false
      rooms[room]!.lastWrite = now
    }
    return due
  }

  /// The write of `due` did not reach Redis: it is tried again one interval later.
  mutating func failed(_ due: Due) {
    if rooms[due.room] != nil { rooms[due.room]!.dirty = true }
  }

  /// The write of `due`, started at `startedAt`, got `outcome`. Returns what to report, and
  /// whether to release the lease (a forgotten room this node holds).
  mutating func written(_ due: Due, outcome: Outcome, startedAt: Double) -> (report: Report?, release: Bool) {
    guard var state = rooms[due.room] else { return (nil, false) }
    let covered = outcome.previous.map { $0.epoch == due.epoch ? $0.seq : 0 } ?? 0
    var report: Report?
    state.holdUntil = outcome.holder ? startedAt + holdSeconds : 0
    if outcome.holder && outcome.stored && state.epoch == due.epoch {
      // Everything after the stored summary, the changes that came during the write included
      // (the next write covers those in Redis): the debounce sees them now.
      let from = max(covered, state.reported) + 1
      if state.seq >= from {
        report = Report(
          room: due.room, epoch: state.epoch, fromSeq: from, toSeq: state.seq, at: state.changedAt,
          wall: state.changedWall, actors: state.actors)
      }
      state.actors = []
      state.reported = max(state.reported, state.seq)
      state.reportedKnown = true
    } else if !outcome.holder && covered < due.seq && startedAt - due.changedAt < takeOverSeconds {
      state.dirty = true
    }
    // Another node holds the lease and its summary covers these ops: it reported them, with the
    // actors it applied. Until then they stay here, for this node's report if the holder never
    // covers them (it stopped or died, and this node takes the lease).
    if !outcome.holder && covered >= due.seq { state.actors = [] }
    if state.forgotten && !state.dirty && state.seq == due.seq {
      rooms[due.room] = nil
      return (report, outcome.holder)
    }
    rooms[due.room] = state
    return (report, false)
  }

  /// The rooms whose lease this node holds; every room is forgotten (the node stops).
  mutating func removeAll() -> [String] {
    let held = rooms.filter { $0.value.holdUntil > 0 }.map(\.key)
    rooms = [:]
    return held
  }
}
