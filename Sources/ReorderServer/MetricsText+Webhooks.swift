import ReorderMetrics
import ReorderWebhooks

extension MetricsText {
  /// `reorder_webhook_delivery_duration_seconds`, one series per result (every result listed,
  /// empty until its first attempt).
  mutating func webhookAttempts(_ durations: WebhookAttemptDurations) {
    histogram(
      "reorder_webhook_delivery_duration_seconds",
      "Webhook attempts, from the POST starting (connecting included) to its response or failure, by result: "
        + "delivered (2xx), refused (another status), error (no response: the connection failed or timed out). "
        + "One per attempt; the waits between retries are not in it.",
      series: WebhookAttemptResult.allCases.map { ([("result", $0.rawValue)], durations.buckets($0)) })
  }
}
