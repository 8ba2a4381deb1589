import Foundation
import Testing

@testable import ReorderLoad

@Suite("Node URLs and the spread of clients over them (issue 14)")
struct NodeSpreadTests {
  @Test("--url takes one URL or a comma list of node URLs, spaces around the commas ignored")
  func list() throws {
    #expect(try LoadTarget.list("ws://127.0.0.1:8080").map(\.origin) == ["ws://127.0.0.1:8080"])
    let nodes = try LoadTarget.list("ws://127.0.0.1:1, wss://[::1]:2 ,http://localhost:3/x")
    #expect(nodes.map(\.origin) == ["ws://127.0.0.1:1", "wss://[::1]:2", "ws://localhost:3"])
    #expect(try LoadTarget.list("ws://127.0.0.1:1,ws://127.0.0.1:1").count == 2)
    let bad = ["", ",", "ws://127.0.0.1:1,", ",ws://127.0.0.1:1", "ws://127.0.0.1:1,,ws://127.0.0.1:2", "ws://a:1,b:2"]
    for text in bad {
      #expect(throws: LoadError.self) { try LoadTarget.list(text) }
    }
  }

  @Test("One room's clients go round-robin by index: 1,000 clients on 2 nodes are 500 on each")
  func oneRoom() {
    var configuration = LoadConfiguration()
    configuration.clients = 1_000
    let plan = RoomPlan(configuration, nodes: 2)
    #expect(plan.clientsPerNode == [500, 500])
    #expect(Array(plan.nodeOfClient.prefix(4)) == [0, 1, 0, 1])
    // The 10 draggers are on both nodes, so their drags cross from one node to the other.
    #expect(plan.initialDraggers.map { plan.nodeOfClient[$0] }.filter { $0 == 1 }.count == 5)
    #expect(RoomPlan(configuration).clientsPerNode == [1_000])
  }

  @Test("Every room's clients are split evenly over the nodes, whatever the room count")
  func manyRooms() {
    var configuration = LoadConfiguration()
    configuration.clients = 40
    configuration.rooms = 2
    let plan = RoomPlan(configuration, nodes: 2)
    for members in plan.clientsOfRoom {
      let onFirst = members.filter { plan.nodeOfClient[$0] == 0 }.count
      #expect(onFirst == 10 && members.count == 20)
    }
    #expect(plan.seeders.allSatisfy { plan.nodeOfClient[$0] == 0 })
    configuration.clients = 10
    configuration.rooms = 1
    #expect(RoomPlan(configuration, nodes: 3).clientsPerNode == [4, 3, 3])
  }

  @Test("With --affinity every client of a room, its seeder first, is on the room's node: room i on node i mod nodes")
  func affinity() {
    var configuration = LoadConfiguration()
    configuration.clients = 60
    configuration.rooms = 5
    configuration.affinity = true
    let plan = RoomPlan(configuration, nodes: 3)
    for (room, members) in plan.clientsOfRoom.enumerated() {
      #expect(members.count == 12)
      #expect(Set(members.map { plan.nodeOfClient[$0] }) == [room % 3])
    }
    #expect(plan.clientsPerNode == [24, 24, 12])
  }

  @Test("Without --allow-remote, every node of the list must be loopback")
  func remoteNode() throws {
    var configuration = LoadConfiguration()
    configuration.url = "ws://127.0.0.1:1,ws://192.0.2.1:80"
    #expect(throws: LoadError.remoteTargetRefused("192.0.2.1")) {
      try LoadRunner(configuration: configuration, makeContext: { throw LoadError.io("unused") })
    }
  }

  @Test("A run over two nodes connects half the clients to each; drags and moves cross between them")
  func acrossNodes() throws {
    let server = FakeServer(mode: .rooms)
    defer { server.stop() }
    var configuration = LoadConfiguration()
    configuration.url = "ws://127.0.0.1:1,ws://127.0.0.1:2"
    configuration.progress = false
    configuration.durationSeconds = 1
    configuration.drainSeconds = 3
    configuration.connectTimeoutSeconds = 10
    configuration.clients = 8
    configuration.draggers = 2
    configuration.moveRate = 40
    let result = try LoadRunner(configuration: configuration, makeContext: { server.makeContext() }).run()
    #expect(server.connections(to: "ws://127.0.0.1:1") == 4)
    #expect(server.connections(to: "ws://127.0.0.1:2") == 4)
    #expect(
      result.nodes == [
        NodeShare(url: "ws://127.0.0.1:1", clients: 4, connected: 4),
        NodeShare(url: "ws://127.0.0.1:2", clients: 4, connected: 4),
      ])
    #expect(result.url == "ws://127.0.0.1:1,ws://127.0.0.1:2")
    #expect(result.textReport.contains("ws://127.0.0.1:1 4 clients (4 ready), ws://127.0.0.1:2 4 clients (4 ready)"))
    // Dragger 0 is on the first node, dragger 1 on the second: each end reaches all 7 others.
    let counters = result.counters
    #expect(counters.dragEndsExpected == 2 * 7)
    #expect(counters.dragEndsDelivered == counters.dragEndsExpected)
    #expect(counters.dragUpdatesLost == 0)
    #expect(counters.movesSent > 0)
    #expect(counters.movesAppliedRemote == counters.movesSent * 7)
    // Each drag reaches 4 receivers on the other node and 3 on its own: the cross-node latency
    // counts the first only.
    let across = try #require(result.crossNodeDragLatency)
    #expect(across.count > 0 && across.count < result.dragLatency.count)
    #expect(result.textReport.contains("across nodes"))
  }
}

@Suite("Target table of the cluster runs (issue 14)")
struct ClusterSummaryTests {
  func result(
    _ label: String, coverage: Double = 1, dragP99: Double = 1, ackP99: Double = 1, acked: Double = 0,
    best: Double? = nil
  ) -> LoadResult {
    func summary(_ milliseconds: Double) -> LatencySummary {
      var histogram = LatencyHistogram()
      histogram.record(microseconds: Int64(milliseconds * 1_000))
      return LatencySummary(histogram)
    }
    var counters = LoadCounters()
    counters.connected = 50
    let step = best.map {
      RampStep(
        draggers: 0, moveRate: $0, fromSecond: 0, toSecond: 2, offeredPerSecond: 0, deliveredPerSecond: 0,
        coveredPerSecond: 0, acknowledgedPerSecond: $0, dragP99: 0, ackP99: 5)
    }
    var result = LoadResult(
      label: label, title: label, mode: .reorder, url: "ws://127.0.0.1:1,ws://127.0.0.1:2", clients: 50, rooms: 1,
      draggers: 0, dragRate: 30, moveRate: 0, ramp: best != nil, startedAt: "", trafficSeconds: 1,
      connectSeconds: 0, counters: counters, connect: summary(1), dragLatency: summary(dragP99),
      staleness: summary(1), ackLatency: summary(ackP99), remoteApplyLatency: summary(1), offeredPerSecond: 0,
      deliveredPerSecond: 0, coveredPerSecond: 0, framesPerSecond: 0, coverage: coverage,
      acknowledgedPerSecond: acked, series: ThroughputSeries(), dragP99PerSecond: [], ackP99PerSecond: [],
      dragLatencyEdgesMs: [], dragLatencyCounts: [], ackLatencyCounts: [], server: nil, loadClient: nil,
      steps: step.map { [$0] } ?? [], best: step, notes: [])
    result.nodes = [
      NodeShare(url: "ws://127.0.0.1:1", clients: 25, connected: 25),
      NodeShare(url: "ws://127.0.0.1:2", clients: 25, connected: 24),
    ]
    return result
  }

  @Test("g, h and h-ramp are marked against the issue's targets, with ratios to their one-node twins")
  func targets() throws {
    let report = LoadReport(runs: [
      result("g", coverage: 0.996, dragP99: 40), result("g-1node", coverage: 0.996, dragP99: 20),
      result("h", ackP99: 25, acked: 2_000), result("h-1node", ackP99: 5, acked: 2_000),
      result("h-ramp", best: 12_000), result("h-ramp-1node", best: 16_000),
    ])
    let figures = try #require(report.cluster)
    #expect(figures.dragP99Ratio.map { abs($0 - 2) < 0.1 } == true)
    #expect(figures.ackP99Ratio.map { abs($0 - 5) < 0.3 } == true)
    #expect(figures.durableMovesRatio == 0.75)
    #expect(figures.durableMovesPerSecond == 12_000)
    let markdown = report.markdown
    #expect(markdown.contains("| g | g | 25 (25) + 25 (24) | 99.60% ✓ | "))
    #expect(markdown.contains("| h | h | 25 (25) + 25 (24) | – | – | – | 25 ✗ |"))
    #expect(markdown.contains("| h-ramp | h-ramp | 25 (25) + 25 (24) | – | – | – | 5.0 | 12k ✓ |"))
    #expect(markdown.contains("Cluster ÷ one node: g coverage 1.00×; g drag p99 "))
    #expect(markdown.contains("h-ramp durable moves/s 0.75×."))
  }

  @Test("Coverage below 99.5 % and a drag p99 over 100 ms fail; no cluster run, no table")
  func failing() {
    let report = LoadReport(runs: [result("g", coverage: 0.99, dragP99: 150)])
    #expect(report.markdown.contains("99.00% ✗"))
    #expect(report.cluster?.coverageRatio == nil)
    #expect(LoadReport(runs: [result("b")]).cluster == nil)
    #expect(!LoadReport(runs: [result("b")]).markdown.contains("ramp ≥ 10,000"))
  }
}
