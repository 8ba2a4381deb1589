import Foundation
import ReorderBasics
import ReorderRedis

/// Cluster mode's board list and `board.changed` webhooks (docs/CLUSTER.md, "Board list and
/// webhooks in cluster mode"), on a thread and a Redis connection of their own
/// (`reorder-redis-summaries`).
///
/// Every node applies every op of the rooms it follows; the service thread tells this type which
/// seqs each application added (`changed`). Only the holder of the room's lease (the snapshot
/// lease, `reorder_lease_acquire`) writes the room's summary and sends its `board.changed`, so
/// that one node does per change:
/// - a room that changed is due at once, then at most once per `writeInterval` while it goes on
///   changing; when due, the thread takes (or renews) the lease and, holding it, stores the
///   summary (`putSummary`, which lists the room in the directory and returns the summary stored
///   before). The stored summary's seq is how far `board.changed` has been reported: the holder
///   reports the seqs after it (and after what it reported itself), at the time of the change.
/// - while the holder's lease is surely its (`holdSeconds` after the call that took it), the
///   changes it applies go to the webhook queue at once (`changed`), so the debounce sees every
///   change when it happens; the other changes wait for the next write.
/// - a node that does not hold the lease checks, one `writeInterval` later, that the stored
///   summary reached its seq; until it does (the holder died) it keeps trying, so it takes over
///   once the dead holder's lease lapses.
///
/// Lists (`list`) run on the same thread, before the writes due. Redis failures make `/healthz`
/// `degraded` (part `summaries`); a failed write is tried again one interval later.
final class ClusterSummaries: @unchecked Sendable {
  /// A room's summary is written at most once per this many seconds while it changes.
  static let writeInterval = 1.0
  /// How long this node counts on a lease it took: its expiry (`RedisRoomStorage.leaseMilliseconds`)
  /// less a margin for the call's round trip.
  static let holdSeconds = Double(RedisRoomStorage.leaseMilliseconds) / 1_000 - 5
  /// How long after a change a node that does not hold the lease keeps checking that the holder
  /// covered it: past the lease's expiry, the lease was either taken by this node or renewed by
  /// a live holder, which then covers it.
  static let takeOverSeconds = Double(RedisRoomStorage.leaseMilliseconds) / 1_000 + 2 * writeInterval

  private struct RoomState {
    var epoch: String
    var seq: UInt64
    var lists: Int
    var items: Int
    /// When the last change happened (`MonotonicClock`) and its Unix time.
    var changedAt: Double
    var changedWall: Double
    /// Changed since the last write (or the write failed, or another holder has not covered it).
    var dirty = true
    var lastWrite = -Double.infinity
    /// Until when this node holds the room's lease for sure (`MonotonicClock`); 0: it does not.
    var holdUntil = 0.0
    /// `board.changed` went to the webhook queue through this seq of `epoch`.
    var reported: UInt64 = 0
    /// The room is not followed any more: write what is pending, release the lease, forget it.
    var forgotten = false
  }

  private struct Due {
    let room: String
    let state: RoomState
  }

  private struct ListJob {
    let after: String?
    let limit: Int
    let completion: @Sendable (Result<[ClusterBoardListing], RedisError>) -> Void
  }

  private let link: RedisLink
  private let node: String
  private let health: ClusterHealth
  private let condition = NSCondition()
  private var rooms: [String: RoomState] = [:]
  private var lists: [ListJob] = []
  private var stopping = false
  private let stopped = DispatchSemaphore(value: 0)
  /// Where `board.changed` goes; set before `start()` (nil: no webhooks, summaries only).
  var webhooks: Webhooks?

  init(link: RedisLink, node: String, health: ClusterHealth) {
    self.link = link
    self.node = node
    self.health = health
  }

  /// Starts the thread.
  func start() {
    let thread = Thread { [self] in run() }
    thread.name = "reorder-redis-summaries"
    thread.start()
  }

  /// Ends the thread after a last write of the rooms that changed, and releases the leases this
  /// node holds for them. Waits at most `timeoutSeconds`. Not on the service thread.
  func stop(timeoutSeconds: Double = 2) {
    condition.lock()
    stopping = true
    condition.signal()
    condition.unlock()
    _ = stopped.wait(timeout: .now() + timeoutSeconds)
  }

  /// Applying the room's log took it to `toSeq` from `fromSeq - 1` (epoch `epoch`, with `lists`
  /// lists and `items` items). Service thread; takes the lock for a few steps.
  func changed(room: String, epoch: String, fromSeq: UInt64, toSeq: UInt64, lists: Int, items: Int) {
    let now = MonotonicClock.now()
    let wall = Date().timeIntervalSince1970
    condition.lock()
    // The thread needs waking only when the room becomes due: a room already waiting for its
    // write is in the thread's reckoning (and a busy room changes far more often than it writes).
    let waiting = rooms[room].map { $0.dirty || $0.forgotten } ?? false
    var state =
      rooms[room] ?? RoomState(epoch: epoch, seq: toSeq, lists: lists, items: items, changedAt: now, changedWall: wall)
    if state.epoch != epoch {
      state.epoch = epoch
      state.reported = 0
    }
    state.seq = toSeq
    state.lists = lists
    state.items = items
    state.changedAt = now
    state.changedWall = wall
    state.dirty = true
    state.forgotten = false
    // The holder reports at once what follows what it reported; anything else (not the holder,
    // or seqs it did not see) waits for the next write, which reports from the stored summary.
    var report: (from: UInt64, to: UInt64)?
    if now < state.holdUntil, state.reported + 1 >= fromSeq, toSeq > state.reported {
      report = (state.reported + 1, toSeq)
      state.reported = toSeq
    }
    rooms[room] = state
    if !waiting { condition.signal() }
    condition.unlock()
    if let report, let webhooks {
      webhooks.boardChanged(room: room, epoch: epoch, fromSeq: report.from, toSeq: report.to, at: now, wall: wall)
    }
  }

  /// The room is not followed here any more (unloaded or dropped): its pending summary is still
  /// written, then the lease is released if this node holds it. Service thread.
  func forget(room: String) {
    condition.lock()
    if rooms[room] != nil {
      rooms[room]!.forgotten = true
      condition.signal()
    }
    condition.unlock()
  }

  /// Up to `limit` rooms of the board list after `after`, with their summaries and roster counts;
  /// `completion` runs on this type's thread. Any thread.
  func list(
    after: String?, limit: Int, completion: @escaping @Sendable (Result<[ClusterBoardListing], RedisError>) -> Void
  ) {
    condition.lock()
    lists.append(ListJob(after: after, limit: limit, completion: completion))
    condition.signal()
    condition.unlock()
  }

  private func run() {
    while true {
      condition.lock()
      while !stopping && lists.isEmpty {
        let now = MonotonicClock.now()
        guard let next = nextDue() else {
          condition.wait()
          continue
        }
        if next <= now { break }
        _ = condition.wait(until: Date(timeIntervalSinceNow: next - now))
      }
      let finishing = stopping
      let jobs = lists
      lists = []
      let due = takeDue(now: MonotonicClock.now(), all: finishing)
      condition.unlock()
      for job in jobs { runList(job) }
      for room in due { write(room) }
      if finishing {
        releaseLeases()
        link.close()
        stopped.signal()
        return
      }
    }
  }

  /// When the earliest room is due (under the lock), or nil when none is.
  private func nextDue() -> Double? {
    rooms.values.lazy.filter { $0.dirty || $0.forgotten }.map { $0.lastWrite + Self.writeInterval }.min()
  }

  /// The rooms due by `now` (every dirty one with `all`), marked written (under the lock).
  private func takeDue(now: Double, all: Bool) -> [Due] {
    var due: [Due] = []
    for (room, state) in rooms where state.dirty || state.forgotten {
      guard all || state.lastWrite + Self.writeInterval <= now else { continue }
      due.append(Due(room: room, state: state))
      rooms[room]!.dirty = false
      rooms[room]!.lastWrite = now
    }
    return due
  }

  private func runList(_ job: ListJob) {
    let now = Int64((Date().timeIntervalSince1970 * 1_000).rounded())
    do {
      let listings = try link.run { (redis) throws(RedisError) in
        try redis.listBoards(after: job.after, limit: job.limit, now: now)
      }
      health.succeeded(.summaries)
      job.completion(.success(listings))
    } catch {
      health.failed(.summaries, error)
      job.completion(.failure(error))
    }
  }

  /// Writes one room's summary if this node holds its lease, and reports what the stored summary
  /// did not cover; else checks that the holder covered it.
  private func write(_ due: Due) {
    let state = due.state
    let started = MonotonicClock.now()
    let summary = ClusterSummary(
      epoch: state.epoch, seq: state.seq, lists: state.lists, items: state.items,
      updatedMilliseconds: Int64((state.changedWall * 1_000).rounded()))
    let outcome: (holder: Bool, stored: Bool, previous: ClusterSummary?)
    do {
      outcome = try link.run { (redis) throws(RedisError) in
        guard try redis.acquireLease(room: due.room, node: node, milliseconds: RedisRoomStorage.leaseMilliseconds)
        else { return (false, false, try redis.summary(room: due.room)) }
        let (stored, previous) = try redis.putSummary(room: due.room, summary)
        return (true, stored, previous)
      }
      health.succeeded(.summaries)
    } catch {
      health.failed(.summaries, error)
      condition.lock()
      if rooms[due.room] != nil { rooms[due.room]!.dirty = true }
      condition.unlock()
      return
    }
    let covered = outcome.previous.map { $0.epoch == state.epoch ? $0.seq : 0 } ?? 0
    var report: (from: UInt64, to: UInt64, at: Double, wall: Double)?
    var releasing = false
    condition.lock()
    if var current = rooms[due.room] {
      current.holdUntil = outcome.holder ? started + Self.holdSeconds : 0
      if outcome.holder && outcome.stored && current.epoch == state.epoch {
        // Everything after the stored summary, the changes that came during this write
        // included (the next write covers those in Redis): the debounce sees them now.
        let from = max(covered, current.reported) + 1
        if current.seq >= from { report = (from, current.seq, current.changedAt, current.changedWall) }
        current.reported = max(current.reported, current.seq)
      } else if !outcome.holder && covered < state.seq && started - state.changedAt < Self.takeOverSeconds {
        // The holder has not covered these seqs yet, or it died: try again next interval, until
        // its lease lapses (then this node takes it) or a live holder has renewed it since.
        current.dirty = true
      }
      if current.forgotten && !current.dirty && current.seq == state.seq {
        rooms[due.room] = nil
        releasing = outcome.holder
      } else {
        rooms[due.room] = current
      }
    }
    condition.unlock()
    if releasing { release(due.room) }
    if let report, let webhooks {
      webhooks.boardChanged(
        room: due.room, epoch: state.epoch, fromSeq: report.from, toSeq: report.to, at: report.at, wall: report.wall)
    }
  }

  /// Releases the room's lease (best effort: a failure leaves it to lapse).
  private func release(_ room: String) {
    _ = try? link.run { (redis) throws(RedisError) in try redis.releaseLease(room: room, node: node) }
  }

  /// On stop: the leases this node holds go, so that another node takes over at once.
  private func releaseLeases() {
    condition.lock()
    let held = rooms.filter { $0.value.holdUntil > 0 }.map(\.key)
    rooms = [:]
    condition.unlock()
    for room in held { release(room) }
  }
}
