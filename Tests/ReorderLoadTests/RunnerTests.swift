import Foundation
import Testing

@testable import ReorderLoad

@Suite("Runner against an in-memory server")
struct RunnerTests {
  func run(_ mode: FakeServer.Mode, _ adjust: (inout LoadConfiguration) -> Void) throws -> LoadResult {
    let server = FakeServer(mode: mode)
    defer { server.stop() }
    var configuration = LoadConfiguration()
    configuration.url = "ws://127.0.0.1:9"
    configuration.progress = false
    configuration.durationSeconds = 1
    configuration.drainSeconds = 3
    configuration.connectTimeoutSeconds = 10
    configuration.mode = mode == .mirror ? .mirror : .reorder
    adjust(&configuration)
    let runner = try LoadRunner(configuration: configuration, makeContext: { server.makeContext() })
    return try runner.run()
  }

  @Test("Mirror mode: every update reaches every other client once, ends included")
  func mirror() throws {
    let result = try run(.mirror) {
      $0.clients = 12
      $0.draggers = 3
      $0.dragRate = 20
      $0.threads = 2
    }
    let counters = result.counters
    #expect(counters.connected == 12)
    #expect(counters.dragUpdatesSent > 3)
    #expect(counters.dragUpdatesExpected == counters.dragUpdatesSent * 11)
    #expect(counters.dragUpdatesDelivered == counters.dragUpdatesExpected)
    #expect(counters.ownEchoes == counters.dragUpdatesSent)
    #expect(counters.dragDuplicates == 0)
    #expect(counters.dragEndsDelivered == 3 * 11)
    #expect(counters.dragUpdatesLost == 0)
  }

  @Test("Rooms mode: moves are acknowledged once each and coalesced drags are fully accounted")
  func rooms() throws {
    let result = try run(.rooms) {
      $0.clients = 8
      $0.rooms = 2
      $0.draggers = 2
      $0.dragRate = 30
      $0.moveRate = 40
    }
    let counters = result.counters
    #expect(counters.connected == 8)
    #expect(counters.movesSent > 0)
    #expect(counters.movesAcknowledged == counters.movesSent)
    #expect(counters.movesAppliedRemote == counters.movesSent * 3)
    #expect(counters.appliedGaps == 0 && counters.appliedDuplicates == 0)
    #expect(result.crossNodeDragLatency == nil)
    #expect(result.nodes == [NodeShare(url: "ws://127.0.0.1:9", clients: 8, connected: 8)])
    #expect(counters.dragEndsDelivered == counters.dragEndsExpected)
    #expect(counters.dragEndsExpected == 2 * 3)
    #expect(
      counters.dragUpdatesCovered + counters.dragUpdatesLate + counters.dragUpdatesLost == counters.dragUpdatesExpected)
    #expect(counters.dragUpdatesLost == 0)
  }

  @Test("Reports: JSON round-trips, HTML is self-contained, runs pair with their mirror twin")
  func reports() throws {
    let ours = try run(.rooms) {
      $0.label = "a"
      $0.clients = 4
      $0.draggers = 1
    }
    let mirror = try run(.mirror) {
      $0.label = "a-mirror"
      $0.clients = 4
      $0.draggers = 1
    }
    let decoded = try JSONDecoder().decode(LoadResult.self, from: ours.jsonData())
    #expect(decoded == ours)
    let report = LoadReport(runs: [ours, mirror])
    #expect(report.comparisons.count == 1)
    #expect(report.comparisons[0].mirrorDeliveredPerSecond != nil)
    #expect(report.markdown.contains("| a |"))
    let html = report.html
    #expect(html.contains("<svg"))
    #expect(!html.contains("<script"))
    #expect(!html.contains("src="))
    #expect(!html.contains("href="))
    #expect(!ours.textReport.isEmpty)
  }

  @Test("A ramp stops by itself and reports its steps")
  func ramp() throws {
    let result = try run(.mirror) {
      $0.clients = 6
      $0.draggers = 1
      $0.ramp = true
      $0.rampStep = 1
      $0.rampStepSeconds = 1
      $0.durationSeconds = 4
    }
    #expect(!result.steps.isEmpty)
    #expect(result.best != nil)
  }
}

@Suite("Summary of several runs")
struct SummaryTests {
  func result(_ label: String, mode: LoadConfiguration.Mode, delivered: Double, covered: Double, p99: Double)
    -> LoadResult
  {
    var counters = LoadCounters()
    counters.dragUpdatesSent = 100
    counters.dragUpdatesExpected = 1_000
    counters.dragUpdatesDelivered = Int(delivered)
    counters.dragUpdatesCovered = Int(covered)
    var latency = LatencyHistogram()
    latency.record(microseconds: Int64(p99 * 1_000))
    return LoadResult(
      label: label, title: "", mode: mode, url: "ws://127.0.0.1:1", clients: 11, rooms: 1, draggers: 1,
      dragRate: 30, moveRate: 0, ramp: false, startedAt: "", trafficSeconds: 1, connectSeconds: 0,
      counters: counters, connect: LatencySummary(LatencyHistogram()), dragLatency: LatencySummary(latency),
      staleness: LatencySummary(latency), ackLatency: LatencySummary(LatencyHistogram()),
      remoteApplyLatency: LatencySummary(LatencyHistogram()), offeredPerSecond: 1_000, deliveredPerSecond: delivered,
      coveredPerSecond: covered, framesPerSecond: delivered, coverage: covered / 1_000, acknowledgedPerSecond: 0,
      series: ThroughputSeries(), dragP99PerSecond: [], ackP99PerSecond: [], dragLatencyEdgesMs: [],
      dragLatencyCounts: [], ackLatencyCounts: [], server: nil, loadClient: nil, steps: [], best: nil, notes: [])
  }

  @Test("A run and its mirror twin become one row of ratios: covered ÷ delivered, mirror p99 ÷ ours")
  func ratios() {
    let report = LoadReport(runs: [
      result("b-mirror", mode: .mirror, delivered: 400, covered: 100, p99: 80),
      result("b", mode: .reorder, delivered: 300, covered: 800, p99: 40),
    ])
    #expect(report.runs.map(\.label) == ["b", "b-mirror"])
    #expect(report.comparisons.count == 1)
    let row = report.comparisons[0]
    #expect(row.throughputRatio == 2)
    #expect(row.latencyRatio == 2)
    #expect(row.mirrorUndelivered == 0.6)
  }
}
