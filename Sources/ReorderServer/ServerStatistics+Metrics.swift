import ReorderBasics
import ReorderCluster
import ReorderMetrics
import ReorderWebhooks

extension MetricsText {
  /// The whole exposition for `statistics`, `process` and the data directory's size. Every
  /// labelled family whose label values are known in advance lists each of them, 0 until it
  /// counts something (`ServerStatistics.withKnownLabels`).
  static func render(_ counted: ServerStatistics, process: ProcessFigures, storeBytes: Int?) -> String {
    var m = MetricsText()
    let statistics = counted.withKnownLabels()
    let t = statistics.transport
    let r = statistics.rooms
    m.buildInfo(BuildInfo.labels)
    m.family("reorder_connections", "gauge", "Open websocket connections.", [([], Double(t.open))])
    m.family("reorder_rooms_loaded", "gauge", "Rooms in memory.", [([], Double(r.roomsLoaded))])
    m.family(
      "reorder_connections_opened_total", "counter", "Websocket connections accepted.", [([], Double(t.opened))])
    m.family(
      "reorder_disconnects_total", "counter",
      "Websockets closed, by close code (the server's, else the client's, else 1006: lost).",
      t.disconnects.sorted { $0.key < $1.key }.map { ([("code", String($0.key))], Double($0.value)) })
    m.family(
      "reorder_upgrades_refused_total", "counter", "Websocket upgrades refused with an HTTP status (403, 429).",
      [([], Double(t.refused))])
    m.family(
      "reorder_messages_received_total", "counter", "Client frames received, by type.",
      r.messagesReceived.sorted { $0.key < $1.key }.map { ([("type", $0.key)], Double($0.value)) })
    m.family("reorder_ops_applied_total", "counter", "Ops applied (each got a seq).", [([], Double(r.opsApplied))])
    m.family(
      "reorder_ops_rejected_total", "counter", "Ops rejected, by error code.",
      r.opsRejected.sorted { $0.key < $1.key }.map { ([("code", $0.key)], Double($0.value)) })
    m.histogram(
      "reorder_op_commit_seconds", "Ops received to durable (the wait before their applied goes out).",
      statistics.durableLatency)
    m.family(
      "reorder_presence_frames_sent_total", "counter", "Drag presence frames sent (one per recipient).",
      [([], Double(r.presenceFramesSent))])
    m.family(
      "reorder_presence_frames_dropped_total", "counter",
      "Drag presence frames not sent because the recipient was busy (held back by the rooms or dropped).",
      [([], Double(r.presenceFramesHeld + t.presenceDropped))])
    m.family(
      "reorder_outgoing_queue_bytes", "gauge", "Bytes queued to clients, over every connection.",
      [([], Double(t.queuedBytes))])
    if let storeBytes {
      m.family("reorder_store_bytes", "gauge", "Bytes of the database files on disk.", [([], Double(storeBytes))])
    }
    m.webhooks(statistics.webhooks)
    m.family(
      "reorder_auth_failures_total", "counter", "Room tokens refused, by reason.",
      r.authFailures.sorted { $0.key < $1.key }.map { ([("reason", $0.key)], Double($0.value)) })
    m.family(
      "reorder_reloads_total", "counter",
      "Reloads (SIGHUP) of the token keys, API keys, webhook secret and TLS certificate, by result: success "
        + "(the new material is in use) or failure (a file was unreadable or invalid: nothing changed).",
      [
        ([("result", "failure")], Double(statistics.reloads.failed)),
        ([("result", "success")], Double(statistics.reloads.succeeded)),
      ])
    m.apiRequests(statistics.apiRequests.withKnownLabels())
    if let cluster = statistics.cluster { m.cluster(cluster) }
    m.process(process)
    return m.text
  }
}
