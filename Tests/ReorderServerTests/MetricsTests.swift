import Foundation
import ReorderBasics
import ReorderRooms
import ReorderStore
import ReorderTransport
import ReorderWebhooks
import TestSupport
import Testing

@testable import ReorderMetrics
@testable import ReorderServer

@Suite("/metrics")
struct MetricsTests {
  @Test("the exposition has HELP and TYPE per family, labelled samples, and a cumulative histogram")
  func rendering() {
    var rooms = RoomStatistics()
    rooms.opsApplied = 7
    rooms.opsRejected = ["read_only": 2, "unknown_item": 1]
    rooms.authFailures = ["expired": 3]
    var latency = LatencyBuckets()
    latency.record(seconds: 0.002)
    latency.record(seconds: 0.5)
    var transport = TransportStatistics()
    transport.open = 4
    var webhooks = WebhookStatistics()
    webhooks.retried = 2
    webhooks.queued = 3
    let text = MetricsText.render(
      ServerStatistics(
        transport: transport, rooms: rooms, store: StoreStatistics(), durableLatency: latency, webhooks: webhooks),
      process: .init(cpuSeconds: 1.5, residentBytes: 4096, openFiles: 9), storeBytes: 123)
    let lines = text.split(separator: "\n").map(String.init)
    #expect(lines.contains("# TYPE reorder_connections gauge"))
    #expect(lines.contains("reorder_connections 4"))
    #expect(lines.contains("reorder_ops_applied_total 7"))
    #expect(lines.contains(#"reorder_ops_rejected_total{code="read_only"} 2"#))
    #expect(lines.contains(#"reorder_auth_failures_total{reason="expired"} 3"#))
    #expect(lines.contains(#"reorder_op_commit_seconds_bucket{le="+Inf"} 2"#))
    #expect(lines.contains("reorder_op_commit_seconds_count 2"))
    #expect(lines.contains("process_cpu_seconds_total 1.5"))
    #expect(lines.contains("reorder_store_bytes 123"))
    #expect(lines.contains(#"reorder_webhook_deliveries_total{result="retried"} 2"#))
    #expect(lines.contains(#"reorder_webhook_deliveries_total{result="dropped"} 0"#))
    #expect(lines.contains("reorder_webhook_queue_events 3"))
    let buckets = lines.filter { $0.hasPrefix("reorder_op_commit_seconds_bucket") }
    let counts = buckets.compactMap { Int($0.split(separator: " ").last!) }
    #expect(counts == counts.sorted(), "cumulative")
    #expect(MetricsText.escape("a\"b\\c\nd") == #"a\"b\\c\nd"#)
  }

  /// Parses `text` with the official Python client's parser; returns "name{labels} value" lines.
  func parsed(_ text: String) throws -> [String] {
    let (status, data) = try PrometheusParse.python(
      """
      import sys
      from prometheus_client.parser import text_string_to_metric_families
      for family in text_string_to_metric_families(sys.stdin.read()):
          for s in family.samples:
              labels = ",".join(f"{k}={v}" for k, v in sorted(s.labels.items()))
              print(f"{s.name}{{{labels}}} {s.value}")
      """, input: text)
    #expect(status == 0, "prometheus_client could not parse /metrics")
    return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
  }

  func value(_ samples: [String], _ prefix: String) -> Double? {
    samples.first { $0.hasPrefix(prefix + " ") }.flatMap { Double($0.split(separator: " ").last!) }
  }

  @Test("over HTTP: prometheus_client parses it, and the counters move as traffic flows")
  func overHTTP() throws {
    let server = try TestServer()
    let before = try parsed(try httpGet(port: server.port, rawPath: "/metrics").text)
    #expect(value(before, "reorder_connections{}") == 0)
    let a = try RoomClient.join(port: server.port, client: "a")
    a.op("a:1", Ops.createList("l"))
    _ = try a.applied(id: "a:1")
    a.op("a:2", Ops.delete("ghost"))
    _ = try a.next(type: "rejected")
    let reply = try httpGet(port: server.port, rawPath: "/metrics")
    #expect(reply.status == 200)
    #expect(reply.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
    let after = try parsed(reply.text)
    #expect(value(after, "reorder_connections{}") == 1)
    #expect(value(after, "reorder_connections_opened_total{}") == 1)
    #expect(value(after, "reorder_ops_applied_total{}") == 1)
    #expect(value(after, "reorder_ops_rejected_total{code=unknown_item}") == 1)
    #expect(value(after, "reorder_messages_received_total{type=hello}") == 1)
    #expect(value(after, "reorder_op_commit_seconds_count{}") ?? 0 >= 1)
    #expect(value(after, "process_resident_memory_bytes{}") ?? 0 > 0)
    #expect(value(after, "process_open_fds{}") ?? 0 > 0)
    a.close()
    let bad = try WebSocket.connect("ws://127.0.0.1:\(server.port)/ws/a%20b")
    while true { if case .closed = try bad.receive(timeout: 5) { break } }
    var closes: [String] = []
    #expect(
      waitUntil {
        closes = (try? parsed(try httpGet(port: server.port, rawPath: "/metrics").text)) ?? []
        return value(closes, "reorder_connections{}") == 0 && value(closes, "reorder_disconnects_total{code=1008}") == 1
      })
    #expect(value(closes, "reorder_disconnects_total{code=1000}") == 1, "the client's normal close")
  }
}
