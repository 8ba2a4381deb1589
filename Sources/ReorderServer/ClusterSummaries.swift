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
/// that one node does per change. When a room is due (`SummaryLedger` decides, under the lock),
/// the thread takes (or renews) the lease and, holding it, stores the summary (`putSummary`,
/// which lists the room in the directory and returns the summary stored before); a node that
/// does not hold it reads the stored summary instead, to see whether the holder covered its seq.
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

  private struct ListJob {
    let after: String?
    let limit: Int
    let completion: @Sendable (Result<[ClusterBoardListing], RedisError>) -> Void
  }

  private let link: RedisLink
  private let node: String
  private let health: ClusterHealth
  private let condition = NSCondition()
  private var ledger = SummaryLedger(
    writeInterval: writeInterval, holdSeconds: holdSeconds, takeOverSeconds: takeOverSeconds)
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
  /// lists and `items` items). Service thread; takes the lock for a few steps, and wakes the
  /// thread only when the room became due (a busy room changes far more often than it writes).
  func changed(room: String, epoch: String, fromSeq: UInt64, toSeq: UInt64, lists: Int, items: Int) {
    let now = MonotonicClock.now()
    let wall = Date().timeIntervalSince1970
    condition.lock()
    let (report, becameDue) = ledger.changed(
      room: room, epoch: epoch, fromSeq: fromSeq, toSeq: toSeq, lists: lists, items: items, now: now, wall: wall)
    if becameDue { condition.signal() }
    condition.unlock()
    if let report { send(report) }
  }

  /// The room is not followed here any more (unloaded or dropped): its pending summary is still
  /// written, then the lease is released if this node holds it. Service thread.
  func forget(room: String) {
    condition.lock()
    if ledger.forget(room: room) { condition.signal() }
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

  private func send(_ report: SummaryLedger.Report) {
    webhooks?.boardChanged(
      room: report.room, epoch: report.epoch, fromSeq: report.fromSeq, toSeq: report.toSeq, at: report.at,
      wall: report.wall)
  }

  private func run() {
    while true {
      condition.lock()
      while !stopping && lists.isEmpty {
        let now = MonotonicClock.now()
        guard let next = ledger.nextDue() else {
          condition.wait()
          continue
        }
        if next <= now { break }
        _ = condition.wait(until: Date(timeIntervalSinceNow: next - now))
      }
      let finishing = stopping
      let jobs = lists
      lists = []
      let due = ledger.takeDue(now: MonotonicClock.now(), all: finishing)
      condition.unlock()
      for job in jobs { runList(job) }
      for room in due { write(room) }
      if finishing {
        condition.lock()
        let held = ledger.removeAll()
        condition.unlock()
        for room in held { release(room) }
        link.close()
        stopped.signal()
        return
      }
    }
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

  /// Writes one room's summary if this node holds its lease, else reads the stored one; the
  /// ledger says what to report.
  private func write(_ due: SummaryLedger.Due) {
    let started = MonotonicClock.now()
    let summary = ClusterSummary(
      epoch: due.epoch, seq: due.seq, lists: due.lists, items: due.items,
      updatedMilliseconds: Int64((due.changedWall * 1_000).rounded()))
    let outcome: SummaryLedger.Outcome
    do {
      outcome = try link.run { (redis) throws(RedisError) in
        guard try redis.acquireLease(room: due.room, node: node, milliseconds: RedisRoomStorage.leaseMilliseconds)
        else {
          let stored = try redis.summary(room: due.room)
          return SummaryLedger.Outcome(holder: false, stored: false, previous: stored.map { ($0.epoch, $0.seq) })
        }
        let (stored, previous) = try redis.putSummary(room: due.room, summary)
        return SummaryLedger.Outcome(holder: true, stored: stored, previous: previous.map { ($0.epoch, $0.seq) })
      }
      health.succeeded(.summaries)
    } catch {
      health.failed(.summaries, error)
      condition.lock()
      ledger.failed(due)
      condition.unlock()
      return
    }
    condition.lock()
    let (report, release) = ledger.written(due, outcome: outcome, startedAt: started)
    condition.unlock()
    if release { self.release(due.room) }
    if let report { send(report) }
  }

  /// Releases the room's lease (best effort: a failure leaves it to lapse).
  private func release(_ room: String) {
    _ = try? link.run { (redis) throws(RedisError) in try redis.releaseLease(room: room, node: node) }
  }
}
