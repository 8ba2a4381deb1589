import ReorderBasics

/// How one webhook attempt ended.
public enum WebhookAttemptResult: String, CaseIterable, Sendable {
  /// The receiver answered 2xx.
  case delivered
  /// The receiver answered another status.
  case refused
  /// No answer: the connection failed, or the attempt timed out.
  case error
}

/// The durations of webhook attempts by how they ended, each from the POST starting (connecting
/// included) to its response or failure (`reorder_webhook_delivery_duration_seconds{result}`).
/// Per attempt: a retried event counts once per attempt, and the waits between them are not in it.
public struct WebhookAttemptDurations: Sendable, Equatable {
  /// The buckets' upper bounds in seconds (5 ms … 10 s, the default attempt timeout; Prometheus'
  /// default buckets).
  public static let bounds: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

  private var byResult: [String: LatencyBuckets] = [:]

  /// No attempts yet.
  public init() {}

  /// Records an attempt that took `seconds` and ended with `result`.
  mutating func record(_ result: WebhookAttemptResult, seconds: Double) {
    byResult[result.rawValue, default: LatencyBuckets(bounds: Self.bounds)].record(seconds: seconds)
  }

  /// The attempts that ended with `result`.
  public func buckets(_ result: WebhookAttemptResult) -> LatencyBuckets {
    byResult[result.rawValue] ?? LatencyBuckets(bounds: Self.bounds)
  }
}
