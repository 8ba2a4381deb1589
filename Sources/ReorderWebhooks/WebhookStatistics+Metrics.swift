import ReorderMetrics

extension MetricsText {
  /// The webhooks' series: events by outcome, each attempt's duration by result, the queue.
  public mutating func webhooks(_ s: WebhookStatistics) {
    family(
      "reorder_webhook_deliveries_total", "counter",
      "Webhook events by outcome: delivered (2xx), retried (an attempt failed, another follows), failed (the "
        + "last attempt failed), dropped (the queue was full), merged (folded into a later board.changed).",
      s.results.map { ([("result", $0.result)], Double($0.count)) })
    webhookAttempts(s.attemptSeconds)
    family(
      "reorder_webhook_queue_events", "gauge", "Webhook events waiting (for their turn or a retry) or in flight.",
      [([], Double(s.queued))])
  }

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
