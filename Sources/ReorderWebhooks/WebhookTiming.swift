/// When webhooks go out, and how many may wait (docs/WEBHOOKS.md). The defaults are the product's;
/// tests shrink the intervals.
public struct WebhookTiming: Sendable, Equatable {
  /// A room's `board.changed` goes out once its board has been quiet this long…
  public var debounceSeconds: Double
  /// …or this long after the first change it covers, whichever comes first (so at least one every
  /// this many seconds while changes go on).
  public var maxWaitSeconds: Double
  /// The waits before the second, third, … attempt: ×4 each time, five attempts over about ten
  /// minutes (the last at 595 s).
  public var retryDelays: [Double]
  /// Seconds one attempt may take, connection to whole response.
  public var attemptTimeoutSeconds: Double
  /// Events waiting or in flight, at most.
  public var capacity: Int
  /// Attempts in flight at once.
  public var maxInFlight: Int

  /// A timing; the defaults are the product's.
  public init(
    debounceSeconds: Double = 2, maxWaitSeconds: Double = 10, retryDelays: [Double] = [7, 28, 112, 448],
    attemptTimeoutSeconds: Double = 10, capacity: Int = 1_000, maxInFlight: Int = 4
  ) {
    self.debounceSeconds = debounceSeconds
    self.maxWaitSeconds = maxWaitSeconds
    self.retryDelays = retryDelays
    self.attemptTimeoutSeconds = attemptTimeoutSeconds
    self.capacity = capacity
    self.maxInFlight = maxInFlight
  }

  /// Attempts per event, the first included.
  public var maxAttempts: Int { retryDelays.count + 1 }
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
  public var results: [(result: String, count: Int)] {
    [("delivered", delivered), ("retried", retried), ("failed", failed), ("dropped", dropped), ("merged", merged)]
  }
}
