import ReorderRooms

/// Which webhook events go out when: debounces each room's changes, keeps the bounded queue of
/// events to deliver, and schedules attempts and retries. Pure: time comes in (`now`, monotonic
/// seconds; `wall`, Unix seconds for the events' `at`), attempts go out as values.
///
/// Rules (docs/WEBHOOKS.md):
/// - A room's durable changes gather into one pending `board.changed` (`from_seq` of the first,
///   `to_seq` of the last), released when the room has been quiet `debounceSeconds`, or
///   `maxWaitSeconds` after the first change it covers; a new epoch, `board.deleted` and a
///   `board.created` of another epoch release it first.
/// - The events of one room go out in order: one attempt at a time per room, and a room's event
///   waits while an earlier one of the same room is queued (retries included).
/// - A released `board.changed` merges into the room's last queued one when that is a
///   `board.changed` of the same epoch not yet attempted (a new id, the range widened).
/// - The queue holds at most `capacity` events; when full, the oldest `board.changed` not in
///   flight of the same room is dropped, else of any room, else the oldest event not in flight,
///   else the new one.
struct WebhookQueue {
  /// One delivery to start now.
  struct Attempt: Equatable {
    let id: String
    let event: WebhookEvent
    /// 1 for the first attempt.
    let number: Int
  }

  private struct Pending {
    var epoch: String
    var fromSeq: UInt64
    var toSeq: UInt64
    var firstAt: Double
    var lastAt: Double
    var lastWall: Double
    var actors: [OpActor]
  }

  private struct Queued {
    var id: String
    var event: WebhookEvent
    var attempts = 0
    var dueAt: Double
    var inFlight = false
    /// When the attempt in flight started.
    var startedAt = 0.0
  }

  let timing: WebhookTiming
  /// Ids are `msg_<idPrefix><n>`: unique to this process (the prefix is random per start).
  let idPrefix: String
  private var nextNumber: UInt64 = 0
  private var pending: [String: Pending] = [:]
  private var queue: [Queued] = []
  private(set) var statistics = WebhookStatistics()

  init(timing: WebhookTiming, idPrefix: String) {
    self.timing = timing
    self.idPrefix = idPrefix
  }

  /// Ops `fromSeq...toSeq` of `room` became durable.
  mutating func changed(
    room: String, epoch: String, fromSeq: UInt64, toSeq: UInt64, actors: [OpActor], now: Double, wall: Double
  ) {
    if var change = pending[room], change.epoch == epoch {
      OpActor.merge(actors, into: &change.actors)
      change.fromSeq = min(change.fromSeq, fromSeq)
      change.toSeq = max(change.toSeq, toSeq)
      // A change may be told after a later one (cluster mode reports some with its next
      // summary write): the debounce counts from the latest change and the first one.
      change.firstAt = min(change.firstAt, now)
      change.lastAt = max(change.lastAt, now)
      change.lastWall = max(change.lastWall, wall)
      pending[room] = change
      return
    }
    release(room, now: now)
    pending[room] = Pending(
      epoch: epoch, fromSeq: fromSeq, toSeq: toSeq, firstAt: now, lastAt: now, lastWall: wall, actors: actors)
  }

  /// `room` was created (or replaced) with `epoch`. A pending change of an older epoch goes first;
  /// one of this epoch (the ops that created the board) stays pending, to follow the creation.
  mutating func created(room: String, epoch: String, now: Double, wall: Double) {
    if pending[room]?.epoch != epoch { release(room, now: now) }
    enqueue(WebhookEvent(room: room, kind: .created(epoch: epoch), at: wall), now: now)
  }

  /// `room` was deleted.
  mutating func deleted(room: String, now: Double, wall: Double) {
    release(room, now: now)
    enqueue(WebhookEvent(room: room, kind: .deleted, at: wall), now: now)
  }

  /// Releases the changes due by `now`, then starts what may start: the attempts to send now.
  mutating func due(now: Double) -> [Attempt] {
    for (room, change) in pending where deadline(change) <= now { release(room, now: now) }
    var inFlight = queue.count { $0.inFlight }
    var blockedRooms = Set<String>()
    var attempts: [Attempt] = []
    for index in queue.indices {
      guard inFlight < timing.maxInFlight else { break }
      let room = queue[index].event.room
      guard blockedRooms.insert(room).inserted else { continue }  // an earlier event of the room waits
      guard !queue[index].inFlight, queue[index].dueAt <= now else { continue }
      queue[index].inFlight = true
      queue[index].startedAt = now
      queue[index].attempts += 1
      inFlight += 1
      attempts.append(Attempt(id: queue[index].id, event: queue[index].event, number: queue[index].attempts))
    }
    return attempts
  }

  /// The attempt `id` ended: `delivered` (a 2xx), or else refused (another status).
  mutating func completed(id: String, delivered: Bool, now: Double) {
    completed(id: id, result: delivered ? .delivered : .refused, now: now)
  }

  /// The attempt `id` ended with `result`, `now`: its duration is counted from when `due` started it.
  mutating func completed(id: String, result: WebhookAttemptResult, now: Double) {
    guard let index = queue.firstIndex(where: { $0.id == id }) else { return }
    statistics.attemptSeconds.record(result, seconds: now - queue[index].startedAt)
    if result == .delivered {
      queue.remove(at: index)
      statistics.delivered += 1
    } else if queue[index].attempts >= timing.maxAttempts {
      queue.remove(at: index)
      statistics.failed += 1
    } else {
      queue[index].inFlight = false
      queue[index].dueAt = now + timing.retryDelays[queue[index].attempts - 1]
      statistics.retried += 1
    }
    statistics.queued = queue.count
  }

  /// When `due` next has something to do (nil: nothing pending, nothing that could start), assuming
  /// no new input. An event that waits behind one in flight (of its room, or for a free slot) does
  /// not count: that attempt's `completed` is the next thing to happen, not a time.
  func nextWake() -> Double? {
    var earliest = pending.values.map(deadline).min()
    guard queue.count(where: { $0.inFlight }) < timing.maxInFlight else { return earliest }
    var rooms = Set<String>()
    for queued in queue where rooms.insert(queued.event.room).inserted && !queued.inFlight {
      earliest = min(earliest ?? queued.dueAt, queued.dueAt)
    }
    return earliest
  }

  private func deadline(_ change: Pending) -> Double {
    min(change.lastAt + timing.debounceSeconds, change.firstAt + timing.maxWaitSeconds)
  }

  /// Moves `room`'s pending change, if any, into the queue.
  private mutating func release(_ room: String, now: Double) {
    guard let change = pending.removeValue(forKey: room) else { return }
    let event = WebhookEvent(
      room: room,
      kind: .changed(epoch: change.epoch, fromSeq: change.fromSeq, toSeq: change.toSeq, actors: change.actors),
      at: change.lastWall)
    if let last = queue.lastIndex(where: { $0.event.room == room }), !queue[last].inFlight, queue[last].attempts == 0,
      case .changed(let epoch, let fromSeq, _, var actors) = queue[last].event.kind, epoch == change.epoch
    {
      OpActor.merge(change.actors, into: &actors)
      queue[last].event.kind = .changed(
        epoch: epoch, fromSeq: min(fromSeq, change.fromSeq), toSeq: change.toSeq, actors: actors)
      queue[last].event.at = change.lastWall
      queue[last].id = makeID()
      statistics.merged += 1
      return
    }
    enqueue(event, now: now)
  }

  private mutating func enqueue(_ event: WebhookEvent, now: Double) {
    if queue.count >= timing.capacity {
      let droppable = { (queued: Queued) in !queued.inFlight && queued.event.type == "board.changed" }
      let victim =
        queue.firstIndex { droppable($0) && $0.event.room == event.room } ?? queue.firstIndex(where: droppable)
        ?? queue.firstIndex { !$0.inFlight }
      statistics.dropped += 1
      guard let victim else {
        statistics.queued = queue.count
        return  // everything queued is in flight: the new event is the one dropped
      }
      queue.remove(at: victim)
    }
    queue.append(Queued(id: makeID(), event: event, dueAt: now))
    statistics.queued = queue.count
  }

  private mutating func makeID() -> String {
    nextNumber += 1
    return "msg_\(idPrefix)\(nextNumber)"
  }
}
