import ReorderMetrics

extension MetricsText {
  /// Cluster mode's series: Redis round trips, reconnects, and each followed room's lag.
  public mutating func cluster(_ c: ClusterStatistics) {
    histogram(
      "reorder_redis_command_seconds", "Redis round trips (a pipeline is one), blocking reads excluded.",
      c.redis.commandSeconds)
    family(
      "reorder_redis_reconnects_total", "counter", "Redis connections made again after one was lost.",
      [([], Double(c.redis.reconnects))])
    family(
      "reorder_redis_stream_lag_ops", "gauge",
      "Per followed room: ops in its Redis log this node has not applied yet (as of the last read of the log's seq).",
      c.streamLag.sorted { $0.key < $1.key }.map { ([("room", $0.key)], Double($0.value)) })
  }
}
