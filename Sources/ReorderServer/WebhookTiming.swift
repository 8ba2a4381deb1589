/// When webhooks go out, and how many may wait (docs/WEBHOOKS.md). The defaults are the product's;
/// tests shrink the intervals.
struct WebhookTiming: Sendable, Equatable {
  /// A room's `board.changed` goes out once its board has been quiet this long…
  var debounceSeconds = 2.0
  /// …or this long after the first change it covers, whichever comes first (so at least one every
  /// this many seconds while changes go on).
  var maxWaitSeconds = 10.0
  /// The waits before the second, third, … attempt: ×4 each time, five attempts over about ten
  /// minutes (the last at 595 s).
  var retryDelays: [Double] = [7, 28, 112, 448]
  /// Seconds one attempt may take, connection to whole response.
  var attemptTimeoutSeconds = 10.0
  /// Events waiting or in flight, at most.
  var capacity = 1_000
  /// Attempts in flight at once.
  var maxInFlight = 4

  /// Attempts per event, the first included.
  var maxAttempts: Int { retryDelays.count + 1 }
}

/// How webhook deliveries went, counted since the start (`reorder_webhook_deliveries_total`).
public struct WebhookStatistics: Sendable, Equatable {
  /// Events a receiver accepted (2xx).
  public var delivered = 0
  /// Attempts that failed and will be tried again.
  public var retried = 0
  /// Events given up on after their last attempt failed.
  public var failed = 0
  /// Events dropped because the queue was full.
  public var dropped = 0
  /// `board.changed` events folded into a later one of the same room before they were sent.
  public var merged = 0
  /// Events waiting or in flight now.
  public var queued = 0
  /// How long attempts took, by how they ended.
  public var attemptSeconds = WebhookAttemptDurations()

  /// No deliveries yet.
  public init() {}

  /// The counters by their `result` label, in the order `/metrics` lists them.
  var results: [(result: String, count: Int)] {
    [("delivered", delivered), ("retried", retried), ("failed", failed), ("dropped", dropped), ("merged", merged)]
  }
}
