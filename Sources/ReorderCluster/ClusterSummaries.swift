import Foundation
import ReorderBasics
import ReorderRedis
import ReorderRooms
import ReorderWebhooks

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
public final class ClusterSummaries: @unchecked Sendable {
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
  /// What the thread works from, under the worker's lock.
  private struct Pending {
    var ledger = SummaryLedger(
      writeInterval: ClusterSummaries.writeInterval, holdSeconds: ClusterSummaries.holdSeconds,
      takeOverSeconds: ClusterSummaries.takeOverSeconds)
    var lists: [ListJob] = []
  }

  /// One pass of the thread: the lists asked for, then the rooms due; the last pass (stopping)
  /// then releases the leases held.
  private struct Pass {
    let lists: [ListJob]
    let due: [SummaryLedger.Due]
    let finishing: Bool
  }

  private let worker = WorkerThread(name: "reorder-redis-summaries", state: Pending())
  /// Where `board.changed` goes; set before `start()` (nil: no webhooks, summaries only).
  public var webhooks: Webhooks?

  init(link: RedisLink, node: String, health: ClusterHealth) {
    self.link = link
    self.node = node
    self.health = health
  }

  /// Starts the thread.
  func start() {
    worker.start(
      next: { (pending: inout Pending, stopping: Bool) -> WorkerStep<Pass> in
        let now = MonotonicClock.now()
        if !stopping && pending.lists.isEmpty {
          guard let next = pending.ledger.nextDue() else { return .wait }
          if next > now { return .waitUntil(next) }
        }
        let lists = pending.lists
        pending.lists = []
        let pass = Pass(lists: lists, due: pending.ledger.takeDue(now: now, all: stopping), finishing: stopping)
        return stopping ? .finish(pass) : .run(pass)
      },
      perform: { [self] (pass: Pass) in
        for job in pass.lists { runList(job) }
        for room in pass.due { write(room) }
        guard pass.finishing else { return }
        let held = worker.withLock { $0.ledger.removeAll() }
        for room in held { release(room) }
        link.close()
      })
  }

  /// Ends the thread after a last write of the rooms that changed, and releases the leases this
  /// node holds for them. Waits at most `timeoutSeconds`. Not on the service thread.
  func stop(timeoutSeconds: Double = 2) {
    worker.stop()
    worker.join(timeoutSeconds: timeoutSeconds)
  }

  /// Applying the room's log took it to `toSeq` from `fromSeq - 1` (epoch `epoch`, with `lists`
  /// lists and `items` items). Service thread; takes the lock for a few steps, and wakes the
  /// thread only when the room became due (a busy room changes far more often than it writes).
  public func changed(
    room: String, epoch: String, fromSeq: UInt64, toSeq: UInt64, lists: Int, items: Int, actors: [OpActor]
  ) {
    let now = MonotonicClock.now()
    let wall = Date().timeIntervalSince1970
    let report = worker.update(waking: { pending, wake in
      let (report, becameDue) = pending.ledger.changed(
        room: room, epoch: epoch, fromSeq: fromSeq, toSeq: toSeq, lists: lists, items: items, actors: actors,
        now: now, wall: wall)
      wake = becameDue
      return report
    })
    if let report { send(report) }
  }

  /// The room is not followed here any more (unloaded or dropped): its pending summary is still
  /// written, then the lease is released if this node holds it. Service thread.
  public func forget(room: String) {
    worker.update(waking: { pending, wake in wake = pending.ledger.forget(room: room) })
  }

  /// Up to `limit` rooms of the board list after `after`, with their summaries and roster counts;
  /// `completion` runs on this type's thread. Any thread.
  public func list(
    after: String?, limit: Int, completion: @escaping @Sendable (Result<[ClusterBoardListing], RedisError>) -> Void
  ) {
    worker.update { $0.lists.append(ListJob(after: after, limit: limit, completion: completion)) }
  }

  private func send(_ report: SummaryLedger.Report) {
    webhooks?.boardChanged(
      room: report.room, epoch: report.epoch, fromSeq: report.fromSeq, toSeq: report.toSeq, actors: report.actors,
      at: report.at, wall: report.wall)
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
      worker.withLock { $0.ledger.failed(due) }
      return
    }
    let (report, release) = worker.withLock { $0.ledger.written(due, outcome: outcome, startedAt: started) }
    if release { self.release(due.room) }
    if let report { send(report) }
  }

  /// Releases the room's lease (best effort: a failure leaves it to lapse).
  private func release(_ room: String) {
    _ = try? link.run { (redis) throws(RedisError) in try redis.releaseLease(room: room, node: node) }
  }
}
