import ReorderBasics
import ReorderRooms
import Testing

@testable import ReorderServer
@testable import ReorderWebhooks

/// `WebhookQueue` with a hand-advanced clock: debounce, ordering, retries, merging, the bound.
@Suite("Webhook queue")
struct WebhookQueueTests {
  static let timing = WebhookTiming(
    debounceSeconds: 2, maxWaitSeconds: 10, retryDelays: [7, 28, 112, 448], attemptTimeoutSeconds: 10, capacity: 4,
    maxInFlight: 4)

  func makeQueue(_ timing: WebhookTiming = timing) -> WebhookQueue { WebhookQueue(timing: timing, idPrefix: "t") }

  func changes(_ attempts: [WebhookQueue.Attempt]) -> [(room: String, from: UInt64, to: UInt64)] {
    attempts.compactMap { attempt in
      guard case .changed(_, let from, let to, _) = attempt.event.kind else { return nil }
      return (attempt.event.room, from, to)
    }
  }

  @Test("a burst of changes becomes one board.changed once the room is quiet for the debounce")
  func burstIsOneEvent() {
    var queue = makeQueue()
    for seq in 1...50 {  // every 1/32 s: the last at 1.5625 s
      queue.changed(
        room: "r", epoch: "e", fromSeq: UInt64(seq), toSeq: UInt64(seq), actors: [], now: Double(seq) / 32, wall: 0)
    }
    #expect(queue.due(now: 3.5).isEmpty, "still within 2 s of the last change")
    #expect(queue.nextWake() == 3.5625)
    let attempts = queue.due(now: 3.5625)
    #expect(changes(attempts).map { "\($0.room) \($0.from)-\($0.to)" } == ["r 1-50"])
    #expect(attempts.first?.number == 1)
  }

  @Test("changes that go on release at least one board.changed every maxWait, with contiguous ranges")
  func continuingChanges() {
    var queue = makeQueue()
    var released: [(room: String, from: UInt64, to: UInt64)] = []
    var seq: UInt64 = 0
    for step in 0..<240 {  // a change every 1/8 s for 30 s, never 2 s quiet
      let now = Double(step) / 8
      seq += 1
      queue.changed(room: "r", epoch: "e", fromSeq: seq, toSeq: seq, actors: [], now: now, wall: now)
      let attempts = queue.due(now: now)
      released += changes(attempts)
      for attempt in attempts { queue.completed(id: attempt.id, delivered: true, now: now) }
    }
    #expect(released.map(\.to) == [81, 162], "at 10 s, then 10 s after the first change it covers (20.125 s)")
    #expect(released.first?.from == 1)
    for (earlier, later) in zip(released, released.dropFirst()) { #expect(later.from == earlier.to + 1) }
  }

  @Test("a failed attempt is retried after 7, 28, 112 and 448 s, then given up")
  func retries() {
    var queue = makeQueue()
    queue.deleted(room: "r", now: 0, wall: 0)
    var now = 0.0
    var numbers: [Int] = []
    var times: [Double] = []
    while let wake = queue.nextWake() {
      now = max(now, wake)
      for attempt in queue.due(now: now) {
        numbers.append(attempt.number)
        times.append(now)
        queue.completed(id: attempt.id, delivered: false, now: now)
      }
    }
    #expect(numbers == [1, 2, 3, 4, 5])
    #expect(times == [0, 7, 35, 147, 595])
    #expect(queue.statistics.retried == 4)
    #expect(queue.statistics.failed == 1)
    #expect(queue.statistics.queued == 0)
  }

  @Test("one room's events go out in order, one at a time; other rooms are not held up")
  func perRoomOrder() {
    var queue = makeQueue()
    queue.created(room: "a", epoch: "e", now: 0, wall: 0)
    queue.deleted(room: "a", now: 0, wall: 0)
    queue.created(room: "b", epoch: "e", now: 0, wall: 0)
    let first = queue.due(now: 0)
    #expect(first.map { "\($0.event.type) \($0.event.room)" } == ["board.created a", "board.created b"])
    #expect(queue.due(now: 0).isEmpty, "a's delete waits for its create")
    queue.completed(id: first[0].id, delivered: false, now: 0)
    #expect(queue.due(now: 1).isEmpty, "a's create waits for its retry, and its delete behind it")
    let retry = queue.due(now: 7)
    #expect(retry.map { "\($0.event.type) \($0.number)" } == ["board.created 2"])
    queue.completed(id: retry[0].id, delivered: true, now: 7)
    #expect(queue.due(now: 7).map(\.event.type) == ["board.deleted"])
  }

  @Test("nothing to wake for while the only startable events wait behind attempts in flight")
  func noWakeWhileBlocked() {
    var timing = Self.timing
    timing.maxInFlight = 2
    var queue = makeQueue(timing)
    queue.created(room: "a", epoch: "e", now: 0, wall: 0)
    queue.deleted(room: "a", now: 0, wall: 0)
    #expect(queue.due(now: 0).count == 1)
    #expect(queue.nextWake() == nil, "a's delete waits for its create, which is in flight")
    queue.created(room: "b", epoch: "e", now: 1, wall: 0)
    queue.created(room: "c", epoch: "e", now: 1, wall: 0)
    #expect(queue.due(now: 1).count == 1, "one slot left: b")
    #expect(queue.nextWake() == nil, "c is due but both slots are taken")
    queue.completed(id: "msg_t1", delivered: false, now: 2)  // a's create: a retry at 9, c may start now
    #expect(queue.nextWake() == 1, "c, due since 1")
  }

  @Test("an unsent board.changed merges with the next one of its room; a delete releases the pending change first")
  func mergesAndRelease() {
    var queue = makeQueue()
    queue.changed(room: "r", epoch: "e", fromSeq: 1, toSeq: 3, actors: [], now: 0, wall: 0)
    _ = queue.due(now: 2)  // released and sent: in flight
    queue.changed(room: "r", epoch: "e", fromSeq: 4, toSeq: 4, actors: [], now: 3, wall: 0)
    #expect(queue.due(now: 5).isEmpty, "r's first event is in flight")
    queue.changed(room: "r", epoch: "e", fromSeq: 5, toSeq: 6, actors: [], now: 6, wall: 0)
    queue.deleted(room: "r", now: 6.5, wall: 0)  // releases 5-6, which merges into the queued 4
    #expect(queue.statistics.merged == 1)
    let inFlight = queue.statistics.queued
    #expect(inFlight == 3, "1-3 in flight, 4-6 merged, the delete")
  }

  @Test("a board.changed lists the distinct actors of the changes it covers, in first-seen order")
  func actorsOfMergedChanges() {
    var queue = makeQueue()
    let ana = OpActor(sub: "u1", name: "Ana")
    let bob = OpActor(name: "Bob")
    queue.changed(room: "r", epoch: "e", fromSeq: 1, toSeq: 1, actors: [ana], now: 0, wall: 0)
    queue.changed(room: "r", epoch: "e", fromSeq: 2, toSeq: 3, actors: [bob, ana], now: 0.1, wall: 0)
    queue.changed(room: "r", epoch: "e", fromSeq: 4, toSeq: 4, actors: [.api], now: 0.2, wall: 0)
    let attempts = queue.due(now: 10)
    #expect(attempts.map(\.event.kind) == [.changed(epoch: "e", fromSeq: 1, toSeq: 4, actors: [ana, bob, .api])])
  }

  @Test("a replaced board: the old epoch's changes, then board.created, then the new epoch's changes")
  func replacedBoard() {
    var queue = makeQueue()
    queue.changed(room: "r", epoch: "old", fromSeq: 5, toSeq: 6, actors: [], now: 0, wall: 0)
    queue.changed(room: "r", epoch: "new", fromSeq: 1, toSeq: 3, actors: [], now: 0.5, wall: 0)  // the PUT's batch
    queue.created(room: "r", epoch: "new", now: 0.6, wall: 0)
    var order: [String] = []
    var now = 0.6
    while let wake = queue.nextWake() {
      now = max(now, wake)
      for attempt in queue.due(now: now) {
        switch attempt.event.kind {
        case .changed(let epoch, let from, let to, _): order.append("changed \(epoch) \(from)-\(to)")
        case .created(let epoch): order.append("created \(epoch)")
        case .deleted: order.append("deleted")
        }
        queue.completed(id: attempt.id, delivered: true, now: now)
      }
    }
    #expect(order == ["changed old 5-6", "created new", "changed new 1-3"])
  }

  @Test("a full queue drops the oldest board.changed of the same room first, and counts it")
  func boundedQueue() {
    var timing = Self.timing
    timing.maxInFlight = 1
    var queue = makeQueue(timing)
    queue.created(room: "x", epoch: "e", now: 0, wall: 0)
    _ = queue.due(now: 0)  // x in flight, holding the queue
    for (index, room) in ["a", "b", "a", "c"].enumerated() {
      // Released by the clock; a's two changes have different epochs, so they do not merge.
      queue.changed(
        room: room, epoch: "e\(index)", fromSeq: UInt64(index + 1), toSeq: UInt64(index + 1), actors: [],
        now: Double(index) * 20, wall: 0)
      _ = queue.due(now: Double(index) * 20 + 10)
    }
    #expect(queue.statistics.dropped == 1)
    #expect(queue.statistics.queued == 4)
    queue.completed(id: "msg_t1", delivered: true, now: 100)
    let next = queue.due(now: 100)
    #expect(next.map { "\($0.event.type) \($0.event.room)" } == ["board.changed b"], "a's older change was dropped")
  }

  @Test("the body has the documented fields; at is RFC 3339 in UTC; actors made the changes")
  func body() {
    let event = WebhookEvent(
      room: "cities",
      kind: .changed(epoch: "0af1", fromSeq: 3, toSeq: 9, actors: [OpActor(sub: "u1", name: "Ana"), .api]),
      at: 1_764_612_245.123_4)
    #expect(
      String(decoding: event.body, as: UTF8.self)
        == #"{"type":"board.changed","room":"cities","epoch":"0af1","from_seq":3,"to_seq":9,"actors":[{"sub":"u1","name":"Ana"},{"sub":null,"name":null,"via":"api"}],"at":"2025-12-01T18:04:05.123Z"}"#
    )
    let deleted = WebhookEvent(room: "cities", kind: .deleted, at: 0)
    #expect(
      String(decoding: deleted.body, as: UTF8.self)
        == #"{"type":"board.deleted","room":"cities","at":"1970-01-01T00:00:00.000Z"}"#)
  }

  @Test("signatures match the Standard Webhooks specification's example")
  func specificationVector() throws {
    let secret = try WebhookSecret(text: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n")
    #expect(
      secret.signature(
        id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: Array(#"{"test": 2432232314}"#.utf8))
        == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    #expect(throws: ConfigurationError.self) { try WebhookSecret(text: "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw") }
    #expect(throws: ConfigurationError.self) { try WebhookSecret(text: "whsec_c2hvcnQ=") }
  }
}
