import Foundation
import ReorderBasics
import ReorderTransport
import Synchronization

/// Signed webhooks (`--webhook-url`, `--webhook-secret-file`; docs/WEBHOOKS.md): events in, signed
/// POSTs out, from a thread of their own.
///
/// Threading: `boardChanged`, `boardCreated` and `boardDeleted` may be called from any thread (the
/// service thread among them): each only takes a lock for a few pure steps of `WebhookQueue` and
/// wakes the `reorder-webhooks` thread, which starts the attempts due and sleeps until the next
/// one. The requests run on the `HTTPClient`'s own thread, whose completions take the same lock.
/// Nothing here waits for the network on a caller's thread.
final class Webhooks: @unchecked Sendable {
  private final class State: @unchecked Sendable {
    let condition = NSCondition()
    var queue: WebhookQueue
    var changed = false
    var stopped = false
    init(queue: WebhookQueue) { self.queue = queue }
  }

  let url: String
  /// What signs the events; `replaceSecret` swaps it (SIGHUP) for the attempts made after.
  private let secret: Mutex<WebhookSecret>
  private let client: HTTPClient
  private let state: State
  private let timing: WebhookTiming
  private let finished = DispatchSemaphore(value: 0)

  /// Starts the delivery thread; events go to `url`, signed with `secret`, through `client`.
  init(url: String, secret: WebhookSecret, timing: WebhookTiming = WebhookTiming(), client: HTTPClient) {
    self.url = url
    self.secret = Mutex(secret)
    self.client = client
    self.timing = timing
    var random = SystemRandomNumberGenerator()
    let prefix = String(random.next() & 0xFFFF_FFFF_FFFF, radix: 36) + "_"
    state = State(queue: WebhookQueue(timing: timing, idPrefix: prefix))
    let thread = Thread { [self] in
      run()
      finished.signal()
    }
    thread.name = "reorder-webhooks"
    thread.start()
  }

  /// Any thread: events sent from now on (retries of earlier ones included) are signed with
  /// `secret`.
  func replaceSecret(_ secret: WebhookSecret) {
    self.secret.withLock { $0 = secret }
  }

  /// Ops `fromSeq...toSeq` of `room` (epoch `epoch`) are durable: a `board.changed` after the
  /// debounce.
  func boardChanged(room: String, epoch: String, fromSeq: UInt64, toSeq: UInt64) {
    boardChanged(
      room: room, epoch: epoch, fromSeq: fromSeq, toSeq: toSeq, at: MonotonicClock.now(),
      wall: Date().timeIntervalSince1970)
  }

  /// The same for a change that happened at `now` (`MonotonicClock`) and `wall` (Unix seconds),
  /// told later: cluster mode's lease holder reports some changes with its next summary write,
  /// and the debounce counts from when they happened.
  func boardChanged(room: String, epoch: String, fromSeq: UInt64, toSeq: UInt64, at now: Double, wall: Double) {
    update { $0.changed(room: room, epoch: epoch, fromSeq: fromSeq, toSeq: toSeq, now: now, wall: wall) }
  }

  /// `room` was created, or replaced with a new `epoch`: a `board.created` now.
  func boardCreated(room: String, epoch: String) {
    let now = MonotonicClock.now()
    let wall = Date().timeIntervalSince1970
    update { $0.created(room: room, epoch: epoch, now: now, wall: wall) }
  }

  /// `room` was deleted: its pending `board.changed`, then a `board.deleted`, now.
  func boardDeleted(room: String) {
    let now = MonotonicClock.now()
    let wall = Date().timeIntervalSince1970
    update { $0.deleted(room: room, now: now, wall: wall) }
  }

  /// How deliveries went so far. Any thread.
  var statistics: WebhookStatistics {
    state.condition.lock()
    defer { state.condition.unlock() }
    return state.queue.statistics
  }

  /// Stops the delivery thread and the HTTP client; what was not delivered yet is lost (events
  /// are not stored). Idempotent; not from the client's thread.
  func shutdown() {
    state.condition.lock()
    let first = !state.stopped
    state.stopped = true
    state.condition.signal()
    state.condition.unlock()
    if first {
      finished.wait()
      client.shutdown()
    }
  }

  private func update(_ body: (inout WebhookQueue) -> Void) {
    state.condition.lock()
    body(&state.queue)
    state.changed = true
    state.condition.signal()
    state.condition.unlock()
  }

  /// The delivery thread: start what is due, then sleep until the next deadline or a change.
  private func run() {
    state.condition.lock()
    while !state.stopped {
      let attempts = state.queue.due(now: MonotonicClock.now())
      let wake = state.queue.nextWake()
      state.changed = false
      state.condition.unlock()
      for attempt in attempts { send(attempt) }
      state.condition.lock()
      while !state.changed && !state.stopped {
        guard let wake else {
          state.condition.wait()
          continue
        }
        let delay = wake - MonotonicClock.now()
        if delay <= 0 || !state.condition.wait(until: Date(timeIntervalSinceNow: delay)) { break }
      }
    }
    state.condition.unlock()
  }

  /// One signed POST; its outcome goes back to the queue (2xx: delivered).
  private func send(_ attempt: WebhookQueue.Attempt) {
    let body = attempt.event.body
    let timestamp = Int(Date().timeIntervalSince1970)
    let request = HTTPClientRequest(
      url: url,
      headers: [("content-type", "application/json")]
        + secret.withLock { $0.headers(id: attempt.id, timestamp: timestamp, body: body) },
      body: body, timeoutSeconds: timing.attemptTimeoutSeconds)
    client.send(request) { [state] result in
      let delivered: Bool
      switch result {
      case .success(let response):
        delivered = (200..<300).contains(response.status)
        if !delivered {
          Log.log(
            .warn, "webhook refused",
            [
              ("id", attempt.id), ("type", attempt.event.type), ("attempt", "\(attempt.number)"),
              ("status", "\(response.status)"),
            ])
        }
      case .failure(let error):
        delivered = false
        Log.log(
          .warn, "webhook failed",
          [("id", attempt.id), ("type", attempt.event.type), ("attempt", "\(attempt.number)"), ("error", "\(error)")])
      }
      state.condition.lock()
      state.queue.completed(id: attempt.id, delivered: delivered, now: MonotonicClock.now())
      state.changed = true
      state.condition.signal()
      state.condition.unlock()
    }
  }
}
