import Foundation
import ReorderBasics
import ReorderRooms
import ReorderTransport

/// Signed webhooks (`--webhook-url`, `--webhook-secret-file`; docs/WEBHOOKS.md): events in, signed
/// POSTs out, from a thread of their own.
///
/// Threading: `boardChanged`, `boardCreated` and `boardDeleted` may be called from any thread (the
/// service thread among them): each only takes a lock for a few pure steps of `WebhookQueue` and
/// wakes the `reorder-webhooks` thread, which starts the attempts due and sleeps until the next
/// one. The requests run on the `HTTPClient`'s own thread, whose completions take the same lock.
/// Nothing here waits for the network on a caller's thread.
public final class Webhooks: @unchecked Sendable {

  /// Where the events go.
  public let url: String
  /// What signs the events; `replaceSecret` swaps it (SIGHUP) for the attempts made after.
  private let secret: Locked<WebhookSecret>
  private let client: HTTPClient
  /// The events and their attempts, and the delivery thread.
  private let worker: WorkerThread<WebhookQueue>
  private let timing: WebhookTiming
  /// Whether `shutdown()` was called.
  private let shutDown = Locked(false)

  /// Starts the delivery thread; events go to `url`, signed with `secret`, through `client`.
  public init(url: String, secret: WebhookSecret, timing: WebhookTiming = WebhookTiming(), client: HTTPClient) {
    self.url = url
    self.secret = Locked(secret)
    self.client = client
    self.timing = timing
    var random = SystemRandomNumberGenerator()
    let prefix = String(random.next() & 0xFFFF_FFFF_FFFF, radix: 36) + "_"
    worker = WorkerThread(name: "reorder-webhooks", state: WebhookQueue(timing: timing, idPrefix: prefix))
    // Start what is due, then sleep until the next deadline or a change (an event, a completion).
    worker.start(
      next: { queue, stopping in
        if stopping { return .finish([WebhookQueue.Attempt]()) }
        let attempts = queue.due(now: MonotonicClock.now())
        if !attempts.isEmpty { return .run(attempts) }
        guard let wake = queue.nextWake() else { return .wait }
        return .waitUntil(wake)
      },
      perform: { [self] (attempts: [WebhookQueue.Attempt]) in
        for attempt in attempts { send(attempt) }
      })
  }

  /// Any thread: events sent from now on (retries of earlier ones included) are signed with
  /// `secret`.
  public func replaceSecret(_ secret: WebhookSecret) {
    self.secret.withLock { $0 = secret }
  }

  /// Ops `fromSeq...toSeq` of `room` (epoch `epoch`), made by `actors`, are durable: a
  /// `board.changed` after the debounce.
  public func boardChanged(room: String, epoch: String, fromSeq: UInt64, toSeq: UInt64, actors: [OpActor]) {
    boardChanged(
      room: room, epoch: epoch, fromSeq: fromSeq, toSeq: toSeq, actors: actors, at: MonotonicClock.now(),
      wall: Date().timeIntervalSince1970)
  }

  /// The same for a change that happened at `now` (`MonotonicClock`) and `wall` (Unix seconds),
  /// told later: cluster mode's lease holder reports some changes with its next summary write,
  /// and the debounce counts from when they happened.
  public func boardChanged(
    room: String, epoch: String, fromSeq: UInt64, toSeq: UInt64, actors: [OpActor], at now: Double, wall: Double
  ) {
    update {
      $0.changed(room: room, epoch: epoch, fromSeq: fromSeq, toSeq: toSeq, actors: actors, now: now, wall: wall)
    }
  }

  /// `room` was created, or replaced with a new `epoch`: a `board.created` now.
  public func boardCreated(room: String, epoch: String) {
    let now = MonotonicClock.now()
    let wall = Date().timeIntervalSince1970
    update { $0.created(room: room, epoch: epoch, now: now, wall: wall) }
  }

  /// `room` was deleted: its pending `board.changed`, then a `board.deleted`, now.
  public func boardDeleted(room: String) {
    let now = MonotonicClock.now()
    let wall = Date().timeIntervalSince1970
    update { $0.deleted(room: room, now: now, wall: wall) }
  }

  /// How deliveries went so far. Any thread.
  public var statistics: WebhookStatistics {
    worker.withLock { $0.statistics }
  }

  /// Stops the delivery thread and the HTTP client; what was not delivered yet is lost (events
  /// are not stored). Idempotent; not from the client's thread.
  public func shutdown() {
    let first = shutDown.withLock { done in
      defer { done = true }
      return !done
    }
    guard first else { return }
    worker.stop()
    worker.join()
    client.shutdown()
  }

  private func update(_ body: (inout WebhookQueue) -> Void) {
    worker.update(body)
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
    client.send(request) { [worker] outcome in
      let result: WebhookAttemptResult
      switch outcome {
      case .success(let response):
        result = (200..<300).contains(response.status) ? .delivered : .refused
        if result == .refused {
          Log.log(
            .warn, "webhook refused",
            [
              ("id", attempt.id), ("type", attempt.event.type), ("attempt", "\(attempt.number)"),
              ("status", "\(response.status)"),
            ])
        }
      case .failure(let error):
        result = .error
        Log.log(
          .warn, "webhook failed",
          [("id", attempt.id), ("type", attempt.event.type), ("attempt", "\(attempt.number)"), ("error", "\(error)")])
      }
      worker.update { $0.completed(id: attempt.id, result: result, now: MonotonicClock.now()) }
    }
  }
}
