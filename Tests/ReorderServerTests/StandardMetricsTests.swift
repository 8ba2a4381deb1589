import Foundation
import ReorderAuth
import ReorderBasics
import ReorderRooms
import ReorderStore
import ReorderTransport
import Testing

@testable import ReorderMetrics
@testable import ReorderServer
@testable import ReorderWebhooks

/// The families a Prometheus user expects, rendered from values: the process collector's, build
/// info, labelled families at 0 before their first event, webhook attempt durations.
@Suite("/metrics: standard families")
struct StandardMetricsTests {
  func render(_ statistics: ServerStatistics = Self.empty, process: ProcessFigures = Self.figures) throws
    -> PrometheusParse
  {
    try PrometheusParse(MetricsText.render(statistics, process: process, storeBytes: 0))
  }

  static let empty = ServerStatistics(
    transport: TransportStatistics(), rooms: RoomStatistics(), store: StoreStatistics(),
    durableLatency: LatencyBuckets())
  static let figures = ProcessFigures(
    cpuSeconds: 2.5, residentBytes: 8192, openFiles: 12, maxFiles: 1024, virtualBytes: 65536,
    startTimeSeconds: 1_700_000_000.25)

  @Test("a /proc/self/stat line: CPU, start, virtual and resident from the fields after the command name")
  func statLine() {
    // The command name holds a space and a ')': fields count from the last ')'.
    let stat =
      "4242 (a b) c) S 1 4242 4242 0 -1 4194560 900 0 0 0 250 150 0 0 20 0 9 0 12345 987654321 300 "
      + "18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 17 1 0 0 0 0 0\n"
    let figures = ProcessFigures.parse(stat: stat, ticksPerSecond: 100, pageBytes: 4096, bootTime: 1_700_000_000)
    #expect(figures.cpuSeconds == 4)
    #expect(figures.startTimeSeconds == 1_700_000_123.45)
    #expect(figures.virtualBytes == 987_654_321)
    #expect(figures.residentBytes == 300 * 4096)
    #expect(ProcessFigures.parse(stat: "garbage", ticksPerSecond: 100, pageBytes: 4096, bootTime: 1).cpuSeconds == 0)
  }

  @Test("this process' own figures: started before now, resident and virtual memory, a descriptor limit")
  func ownFigures() {
    let figures = ProcessFigures.read()
    let now = Date().timeIntervalSince1970
    #expect(ProcessFigures.bootTime > 1_000_000_000 && ProcessFigures.bootTime < now)
    #expect(figures.startTimeSeconds > ProcessFigures.bootTime && figures.startTimeSeconds <= now + 1)
    #expect(figures.residentBytes > 0 && figures.virtualBytes >= figures.residentBytes)
    #expect(figures.openFiles > 0 && figures.maxFiles >= figures.openFiles)
  }

  @Test("the process families have the client libraries' names, types and help texts")
  func processFamilies() throws {
    let parsed = try render()
    #expect(parsed.problems() == [])
    let expected: [(String, String, String, Double)] = [
      ("process_cpu_seconds", "counter", "Total user and system CPU time spent in seconds.", 2.5),
      ("process_open_fds", "gauge", "Number of open file descriptors.", 12),
      ("process_max_fds", "gauge", "Maximum number of open file descriptors.", 1024),
      ("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.", 65536),
      ("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", 8192),
      (
        "process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.",
        1_700_000_000.25
      ),
    ]
    for (name, type, help, value) in expected {
      let family = try #require(parsed.family(name), "\(name)")
      #expect(family.type == type, "\(name)")
      #expect(family.help == help, "\(name)")
      #expect(family.samples.map(\.value) == [value], "\(name)")
    }
  }

  @Test("reorder_build_info is 1, labelled with the version, the compiler and the libraries")
  func buildInfo() throws {
    let family = try #require(try render().family("reorder_build_info"))
    #expect(family.type == "gauge")
    #expect(family.samples.map(\.value) == [1])
    let labels = family.samples.first?.labels ?? [:]
    #expect(labels["version"] == BuildInfo.version)
    #expect(labels["swift"] == BuildInfo.swift)
    #expect(labels["libwebsockets"] == LibWebSocketsVersion.current)
    #expect(labels["sqlite"] == SQLiteVersion.current)
    #expect(Set(labels.keys) == ["version", "swift", "libwebsockets", "sqlite"])
  }

  @Test("before any event every known label value is listed at 0; counted values stay as counted")
  func knownLabelsAtZero() throws {
    let parsed = try render()
    for code in CloseCode.counted {
      #expect(parsed.value("reorder_disconnects_total", ["code": String(code)]) == 0, "\(code)")
    }
    for type in RoomStatistics.messageTypes {
      #expect(parsed.value("reorder_messages_received_total", ["type": type]) == 0, "\(type)")
    }
    for code in ErrorCode.rejectionCodes {
      #expect(parsed.value("reorder_ops_rejected_total", ["code": code.rawValue]) == 0, "\(code)")
    }
    for reason in TokenError.Reason.allCases {
      #expect(parsed.value("reorder_auth_failures_total", ["reason": reason.rawValue]) == 0, "\(reason)")
    }
    for result in ["delivered", "retried", "failed", "dropped", "merged"] {
      #expect(parsed.value("reorder_webhook_deliveries_total", ["result": result]) == 0, "\(result)")
    }
    var counted = Self.empty
    counted.transport.disconnects = [1000: 3, 3999: 1]
    counted.rooms.opsRejected = ["read_only": 2]
    let after = try render(counted)
    #expect(after.value("reorder_disconnects_total", ["code": "1000"]) == 3)
    #expect(after.value("reorder_disconnects_total", ["code": "3999"]) == 1, "a client's own code is listed too")
    #expect(after.value("reorder_disconnects_total", ["code": "1008"]) == 0)
    #expect(after.value("reorder_ops_rejected_total", ["code": "read_only"]) == 2)
    #expect(after.value("reorder_ops_rejected_total", ["code": "unknown_item"]) == 0)
  }

  @Test("CloseCode.counted holds every code of the close code table, and 1006")
  func closeCodesCounted() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let source = try String(
      contentsOf: root.appendingPathComponent("Sources/ReorderBasics/CloseCode.swift"), encoding: .utf8)
    let declared = source.split(separator: "\n").compactMap { line -> UInt16? in
      guard line.contains("public static let"), line.contains(": UInt16 =") else { return nil }
      return UInt16(line.split(separator: "=").last!.trimmingCharacters(in: .whitespaces))
    }
    #expect(declared.count >= 13)
    #expect(Set(CloseCode.counted) == Set(declared + [1006]))
    #expect(CloseCode.counted.count == Set(CloseCode.counted).count)
  }

  @Test("webhook attempt durations: one observation per attempt, by result, from its start to its end")
  func attemptDurations() throws {
    var queue = WebhookQueue(
      timing: WebhookTiming(debounceSeconds: 1, maxWaitSeconds: 5, retryDelays: [7, 28]), idPrefix: "t")
    queue.created(room: "r", epoch: "e", now: 0, wall: 0)
    let first = queue.due(now: 10)
    try #require(first.count == 1)
    queue.completed(id: first[0].id, result: .error, now: 13)  // 3 s: a timeout
    let second = queue.due(now: 20)  // 7 s after the first ended
    try #require(second.count == 1)
    queue.completed(id: second[0].id, result: .refused, now: 20.02)
    let third = queue.due(now: 48.02)  // 28 s after the second ended
    try #require(third.count == 1)
    queue.completed(id: third[0].id, result: .delivered, now: 48.024)
    let durations = queue.statistics.attemptSeconds
    #expect(durations.buckets(.error).count == 1)
    #expect(abs(durations.buckets(.error).sum - 3) < 1e-9)
    #expect(durations.buckets(.error).cumulative.first { $0.le == 2.5 }?.count == 0)
    #expect(durations.buckets(.error).cumulative.first { $0.le == 5 }?.count == 1)
    #expect(durations.buckets(.refused).cumulative.first { $0.le == 0.025 }?.count == 1)
    #expect(durations.buckets(.refused).cumulative.first { $0.le == 0.01 }?.count == 0)
    #expect(durations.buckets(.delivered).cumulative.first { $0.le == 0.005 }?.count == 1)
    #expect(queue.statistics.delivered == 1 && queue.statistics.retried == 2)

    var statistics = Self.empty
    statistics.webhooks = queue.statistics
    let parsed = try render(statistics)
    #expect(parsed.problems() == [])
    let family = try #require(parsed.family("reorder_webhook_delivery_duration_seconds"))
    #expect(family.type == "histogram")
    let bucket = "reorder_webhook_delivery_duration_seconds_bucket"
    #expect(parsed.value(bucket, ["result": "error", "le": "2.5"]) == 0)
    #expect(parsed.value(bucket, ["result": "error", "le": "5"]) == 1)
    #expect(parsed.value(bucket, ["result": "refused", "le": "+Inf"]) == 1)
    #expect(parsed.value("reorder_webhook_delivery_duration_seconds_count", ["result": "delivered"]) == 1)
    #expect(parsed.value("reorder_webhook_delivery_duration_seconds_sum", ["result": "error"]) == 3)
  }
}
