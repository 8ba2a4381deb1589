import Foundation
import ReorderAuth
import ReorderBasics
import ReorderRooms
import TestSupport
import Testing

@testable import ReorderServer

/// `/metrics` of the `reorder` executable as Prometheus scrapes it, read by the official Python
/// client's parser: every family typed and described, the labelled ones listing their known
/// series at 0 from the start, the build and process families, and webhook attempt durations.
@Suite("/metrics of a served node", .serialized)
struct MetricsEndToEndTests {
  static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

  @Test("at start: known series at 0, build_info 1, process_* from /proc; a delivered webhook is timed")
  func servedNode() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try directory.write("webhook-secret", Self.secret + "\n")
    let receiver = try WebhookReceiver(secret: Self.secret)
    defer { receiver.stop() }
    let binary = try #require(ChildProcess.builtProduct("reorder"), "build the reorder product first (swift build)")
    let launched = Date().timeIntervalSince1970
    let child = try ChildProcess(
      executable: binary,
      arguments: [
        "serve", "--port", "0", "--data", ":memory:", "--web", "web", "--webhook-url", receiver.url,
        "--webhook-secret-file", directory.path + "/webhook-secret",
      ])
    defer { child.terminate() }
    let line = try #require(child.waitForLine(timeout: 20) { $0.hasPrefix("Reorder is listening on ") })
    let listening = Date().timeIntervalSince1970
    let port = try #require(
      line.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: CharacterSet(charactersIn: "/ "))) })

    let start = try PrometheusParse(try httpGet(port: port, rawPath: "/metrics").text)
    #expect(start.problems() == [])
    for name in [
      "reorder_disconnects", "reorder_messages_received", "reorder_ops_rejected", "reorder_auth_failures",
      "reorder_webhook_deliveries",
    ] {
      let family = try #require(start.family(name), "\(name) is missing")
      #expect(family.type == "counter")
      #expect(!family.samples.isEmpty, "\(name) lists its known series")
      #expect(family.samples.allSatisfy { $0.value == 0 }, "\(name) at start: \(family.samples)")
    }
    #expect(start.value("reorder_disconnects_total", ["code": "1006"]) == 0)
    #expect(start.value("reorder_disconnects_total", ["code": "4401"]) == 0)
    #expect(start.value("reorder_messages_received_total", ["type": "op"]) == 0)
    #expect(start.value("reorder_ops_rejected_total", ["code": "storage_full"]) == 0)
    #expect(start.value("reorder_auth_failures_total", ["reason": "expired"]) == 0)
    #expect(start.value("reorder_webhook_deliveries_total", ["result": "failed"]) == 0)
    for result in ["delivered", "refused", "error"] {
      #expect(start.value("reorder_webhook_delivery_duration_seconds_count", ["result": result]) == 0)
      #expect(start.value("reorder_webhook_delivery_duration_seconds_bucket", ["result": result, "le": "+Inf"]) == 0)
    }

    let build = try #require(start.family("reorder_build_info"))
    #expect(build.type == "gauge")
    #expect(build.samples.count == 1)
    #expect(build.samples.first?.value == 1)
    let labels = build.samples.first?.labels ?? [:]
    #expect(labels["version"] == BuildInfo.version)
    #expect(labels["swift"]?.isEmpty == false)
    #expect(labels["libwebsockets"]?.hasPrefix("4.") == true, "\(labels)")
    #expect(labels["libwebsockets"]?.hasSuffix("-") == false, "no empty git tag left over: \(labels)")
    #expect(labels["sqlite"]?.hasPrefix("3.") == true, "\(labels)")

    let types = [
      "process_cpu_seconds": "counter", "process_open_fds": "gauge", "process_max_fds": "gauge",
      "process_virtual_memory_bytes": "gauge", "process_resident_memory_bytes": "gauge",
      "process_start_time_seconds": "gauge",
    ]
    for (name, type) in types { #expect(start.family(name)?.type == type, "\(name)") }
    let started = try #require(start.value("process_start_time_seconds"))
    // btime is whole seconds, truncated: the computed start may be up to a second early.
    #expect(started >= launched - 2 && started <= listening + 1, "\(started) vs launched at \(launched)")
    let resident = try #require(start.value("process_resident_memory_bytes"))
    let virtual = try #require(start.value("process_virtual_memory_bytes"))
    #expect(resident > 1_000_000 && virtual >= resident, "resident \(resident), virtual \(virtual)")
    let openFiles = try #require(start.value("process_open_fds"))
    let maxFiles = try #require(start.value("process_max_fds"))
    #expect(openFiles > 0 && maxFiles >= openFiles, "open \(openFiles), max \(maxFiles)")
    // CPU time counts in clock ticks (10 ms): a child just started may not have one yet.
    let cpuAtStart = try #require(start.value("process_cpu_seconds_total"))
    #expect(cpuAtStart >= 0)

    let client = try RoomClient.join(port: port, room: "timed", client: "a")
    client.op("a:1", Ops.createList("l"))
    _ = try client.applied(id: "a:1")
    var after = start
    #expect(
      try waitUntil(timeout: 15, pollMilliseconds: 50) {
        after = try PrometheusParse(try httpGet(port: port, rawPath: "/metrics").text)
        return after.value("reorder_webhook_delivery_duration_seconds_count", ["result": "delivered"]) == 1
      })
    // Its log reaches this process through a pipe, after the server counted the delivery.
    #expect(waitUntil(timeout: 5) { receiver.deliveries.count == 1 })
    #expect(receiver.deliveries.map(\.status) == [204])
    #expect(after.problems() == [])
    #expect(after.value("reorder_webhook_deliveries_total", ["result": "delivered"]) == 1)
    #expect(
      after.value("reorder_webhook_delivery_duration_seconds_bucket", ["result": "delivered", "le": "+Inf"]) == 1)
    let seconds = try #require(after.value("reorder_webhook_delivery_duration_seconds_sum", ["result": "delivered"]))
    #expect(seconds > 0 && seconds < 10, "\(seconds)")
    #expect(after.value("reorder_webhook_delivery_duration_seconds_count", ["result": "refused"]) == 0)
    #expect(after.value("reorder_messages_received_total", ["type": "op"]) == 1)
    #expect(after.value("reorder_ops_rejected_total", ["code": "storage_full"]) == 0)
    #expect((after.value("process_cpu_seconds_total") ?? -1) >= cpuAtStart)
    client.close()
  }

  @Test("reorder --version prints the version build_info carries")
  func versionFlag() throws {
    let binary = try #require(ChildProcess.builtProduct("reorder"))
    let child = try ChildProcess(executable: binary, arguments: ["--version"])
    defer { child.terminate() }
    #expect(child.waitForLine(timeout: 10) { $0.hasPrefix("reorder") } == "reorder \(BuildInfo.version)")
    #expect(child.waitForExit(timeout: 10) == 0)
  }
}
