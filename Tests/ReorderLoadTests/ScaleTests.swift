import Foundation
import Testing

@testable import ReorderLoad

/// The tool's parts for the scale runs: join-only runs, partial connects, seeding a big board, the
/// loader, and the target tables. Counts only; nothing here depends on timing beyond "it ran".
@Suite("Rooms of 10,000, join cost and load isolation")
struct ScaleTests {
  func run(_ server: FakeServer, _ adjust: (inout LoadConfiguration) -> Void) throws -> LoadResult {
    var configuration = LoadConfiguration()
    configuration.url = "ws://127.0.0.1:9"
    configuration.progress = false
    configuration.durationSeconds = 1
    configuration.drainSeconds = 1
    configuration.connectTimeoutSeconds = 10
    configuration.settleTimeoutSeconds = 5
    adjust(&configuration)
    let runner = try LoadRunner(configuration: configuration, makeContext: { server.makeContext() })
    return try runner.run()
  }

  @Test("A join-only run welcomes every client, prepares no room and counts one peer frame per member per join")
  func joinOnlyCountsRoster() throws {
    let server = FakeServer(mode: .rooms, roster: .peer)
    defer { server.stop() }
    let result = try run(server) {
      $0.clients = 30
      $0.rooms = 3
      $0.draggers = 0
      $0.joinOnly = true
      $0.threads = 2
    }
    #expect(result.counters.connected == 30)
    #expect(result.join?.connected == 30)
    #expect(server.ops() == 0)
    #expect(result.counters.dragUpdatesSent == 0)
    // Each of a room's 10 joins is announced to the members before it: 0 + 1 + … + 9 = 45.
    #expect(result.counters.peerFrames == 3 * 45)
    #expect(result.counters.errors == 0)
    #expect(try #require(result.join).spanSeconds <= result.join!.joinSeconds)
  }

  @Test("--start-gate: the traffic waits until the file exists; a gate that never appears is noted after the timeout")
  func startGate() throws {
    let server = FakeServer(mode: .rooms, roster: .peer)
    defer { server.stop() }
    let gate = FileManager.default.temporaryDirectory.appendingPathComponent("reorder-gate-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: gate) }
    let opened = Date()
    Thread.detachNewThread {
      Thread.sleep(forTimeInterval: 1.5)
      FileManager.default.createFile(atPath: gate, contents: nil)
    }
    let result = try run(server) {
      $0.clients = 6
      $0.draggers = 1
      $0.startGate = gate
    }
    // 1.5 s for the gate, then the 1 s of traffic.
    #expect(Date().timeIntervalSince(opened) >= 2.5)
    #expect(result.counters.dragUpdatesSent > 0)
    #expect(!result.notes.contains { $0.contains("--start-gate") })
    let missing = try run(server) {
      $0.clients = 2
      $0.draggers = 1
      $0.connectTimeoutSeconds = 1
      $0.startGate = gate + ".never"
    }
    #expect(missing.notes.contains { $0.contains("--start-gate") })
    #expect(missing.counters.dragUpdatesSent > 0, "the traffic runs after the timeout")
  }

  @Test("Against a coalesced roster (peers frames, welcome with peer_count) drags are still fully accounted")
  func coalescedRosterIsIgnored() throws {
    let server = FakeServer(mode: .rooms, roster: .peers)
    defer { server.stop() }
    let result = try run(server) {
      $0.clients = 12
      $0.draggers = 2
      $0.dragRate = 30
      $0.coverageWindowMilliseconds = 250
    }
    let counters = result.counters
    #expect(counters.connected == 12)
    #expect(counters.peerFrames > 0)
    #expect(counters.errors == 0)
    #expect(counters.dragEndsDelivered == counters.dragEndsExpected)
    #expect(
      counters.dragUpdatesCovered + counters.dragUpdatesLate + counters.dragUpdatesLost == counters.dragUpdatesExpected)
    #expect(result.coverageWindowMilliseconds == 250)
  }

  @Test("With --measure-receivers only every k-th client accounts updates, and what is due is theirs")
  func measuredReceivers() throws {
    let server = FakeServer(mode: .rooms)
    defer { server.stop() }
    let result = try run(server) {
      $0.clients = 12
      $0.draggers = 2
      $0.measureReceivers = 4
    }
    let counters = result.counters
    // Measured: clients 0, 3, 6, 9. Client 0's drag is due at 3 of them, client 1's at all 4.
    #expect(counters.dragEndsExpected == 7)
    #expect(counters.dragEndsDelivered == 7)
    #expect(
      counters.dragUpdatesCovered + counters.dragUpdatesLate + counters.dragUpdatesLost == counters.dragUpdatesExpected)
    #expect(counters.dragUpdatesExpected <= counters.dragUpdatesSent * 4)
    #expect(result.receiverSilence?.count == 4)
  }

  @Test("With --partial a run goes on with the clients that got in; without it, it fails")
  func partialConnect() throws {
    let server = FakeServer(mode: .rooms, maxConnections: 7)
    defer { server.stop() }
    let result = try run(server) {
      $0.clients = 10
      $0.draggers = 1
      $0.partialConnect = true
    }
    #expect(result.counters.connected == 7)
    #expect(result.counters.connectFailures == 3)
    #expect(result.notes.contains { $0.hasPrefix("only 7 of 10 clients connected") })
    let full = FakeServer(mode: .rooms, maxConnections: 7)
    defer { full.stop() }
    #expect(throws: LoadError.self) {
      _ = try run(full) {
        $0.clients = 10
        $0.draggers = 1
      }
    }
  }

  @Test("Seeding keeps at most a window of ops in flight: inserts first, then moves, then the board is ready")
  func seederWindow() {
    let seeder = RoomSeeder(room: 0, wantedItems: 10, wantedMoves: 25, window: 4)
    var inFlight: [String] = []
    var most = 0
    var insertsApplied = 0
    var movesBeforeLastInsert = 0
    var movesApplied = 0
    inFlight += seeder.welcome(#"{"type":"welcome","seq":0,"board":{"lists":[{"id":"L","items":[]}]},"peers":[]}"#)
    var seq = 0
    while let frame = inFlight.first {
      inFlight.removeFirst()
      most = max(most, inFlight.count + 1)
      let object = (try? JSONSerialization.jsonObject(with: Data(frame.utf8))) as? [String: Any] ?? [:]
      let id = object["id"] as? String ?? ""
      let op = object["op"] as? [String: Any] ?? [:]
      seq += 1
      let resolved: String
      if op["kind"] as? String == "insert" {
        insertsApplied += 1
        resolved = #"{"kind":"insert","item":"n\#(seq)","list":"L","index":0}"#
      } else {
        if insertsApplied < 10 { movesBeforeLastInsert += 1 }
        movesApplied += 1
        resolved = #"{"kind":"move","item":"\#(op["item"] as? String ?? "")","list":"L","index":0}"#
      }
      inFlight += seeder.received(
        type: "applied", text: #"{"type":"applied","seq":\#(seq),"id":"\#(id)","by":"s","op":\#(resolved)}"#)
    }
    #expect(most <= 4)
    #expect(insertsApplied == 10)
    #expect(movesApplied == 25)
    #expect(movesBeforeLastInsert == 0)
    #expect(seeder.opsApplied == 35)
    #expect(seeder.board?.items.count == 10)
    #expect(seeder.failure == nil)
  }

  @Test("A rejected seeding op fails the seeding instead of waiting for it")
  func seederRejected() {
    let seeder = RoomSeeder(room: 2, wantedItems: 1)
    let frames = seeder.welcome(#"{"type":"welcome","board":{"lists":[{"id":"L","items":[]}]}}"#)
    #expect(frames.count == 1)
    let id = ((try? JSONSerialization.jsonObject(with: Data(frames[0].utf8))) as? [String: Any])?["id"] as? String
    _ = seeder.received(
      type: "rejected", text: #"{"type":"rejected","id":"\#(id ?? "")","code":"limit","message":"too many"}"#)
    #expect(seeder.failure?.contains("too many") == true)
    #expect(seeder.board == nil)
  }

  @Test("A seed-only run applies the missing items and the moves, and connects nobody else")
  func seedOnly() throws {
    let server = FakeServer(mode: .rooms)
    defer { server.stop() }
    let result = try run(server) {
      $0.clients = 5
      $0.draggers = 0
      $0.seedOnly = true
      $0.seedItems = 40
      $0.seedMoves = 100
      $0.seedWindow = 16
      $0.roomPrefix = "big"
    }
    // The fake board starts with 30 items: 10 inserts, then 100 moves.
    #expect(result.seeding?.opsApplied == 110)
    #expect(server.ops() == 110)
    #expect(result.counters.connected == 1)
    #expect(server.hellos(endingIn: "/big0") == 1)
  }

  @Test("The loader joins and leaves its room during the traffic; every join it started is accounted")
  func loader() throws {
    let server = FakeServer(mode: .rooms)
    defer { server.stop() }
    let result = try run(server) {
      $0.clients = 4
      $0.draggers = 1
      $0.loaderRoom = "big0"
      $0.loaderIntervalMilliseconds = 50
    }
    let loader = try #require(result.loader)
    #expect(loader.joins >= 1)
    #expect(loader.welcomed >= 1)
    #expect(loader.joins == loader.welcomed + loader.failed)
    #expect(server.hellos(endingIn: "/big0") == loader.welcomed + loader.failed)
    #expect(loader.welcomeLatency.count == UInt64(loader.welcomed))
    #expect(result.counters.connected == 4)
  }

  @Test("Counts written by an older tool (no peerFrames) still decode; add sums every count")
  func countersCodable() throws {
    let old = try JSONDecoder().decode(LoadCounters.self, from: Data(#"{"connected":3,"dragFrames":7}"#.utf8))
    #expect(old.connected == 3 && old.dragFrames == 7 && old.peerFrames == 0)
    var counters = LoadCounters()
    for (offset, field) in LoadCounters.fields.enumerated() { counters[keyPath: field.path] = offset + 1 }
    var sum = counters
    sum.add(counters)
    let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(sum)) as? [String: Int]
    #expect(encoded?.count == LoadCounters.fields.count)
    for (offset, field) in LoadCounters.fields.enumerated() { #expect(encoded?[field.key] == 2 * (offset + 1)) }
    #expect(try JSONDecoder().decode(LoadCounters.self, from: JSONEncoder().encode(sum)) == sum)
  }

  @Test("Options that cannot go together are refused")
  func problems() {
    var configuration = LoadConfiguration()
    configuration.joinOnly = true
    #expect(!configuration.problems().isEmpty)  // draggers default to 10
    configuration.draggers = 0
    #expect(configuration.problems().isEmpty)
    configuration.seedOnly = true
    #expect(!configuration.problems().isEmpty)
    configuration = LoadConfiguration()
    configuration.mode = .mirror
    configuration.loaderRoom = "x"
    #expect(!configuration.problems().isEmpty)
  }
}

@Suite("Target tables of issue 11")
struct ScaleSummaryTests {
  func result(_ label: String, clients: Int, rooms: Int, join: Double? = nil, p99: Double = 1) -> LoadResult {
    var latency = LatencyHistogram()
    latency.record(microseconds: Int64(p99 * 1_000))
    var counters = LoadCounters()
    counters.connected = clients
    var result = LoadResult(
      label: label, title: label, mode: .reorder, url: "ws://127.0.0.1:1", clients: clients, rooms: rooms,
      draggers: 0, dragRate: 30, moveRate: 0, ramp: false, startedAt: "", trafficSeconds: 1, connectSeconds: 0,
      counters: counters, connect: LatencySummary(LatencyHistogram()), dragLatency: LatencySummary(latency),
      staleness: LatencySummary(latency), ackLatency: LatencySummary(LatencyHistogram()),
      remoteApplyLatency: LatencySummary(LatencyHistogram()), offeredPerSecond: 0, deliveredPerSecond: 0,
      coveredPerSecond: 0, framesPerSecond: 0, coverage: 1, acknowledgedPerSecond: 0, series: ThroughputSeries(),
      dragP99PerSecond: [], ackP99PerSecond: [], dragLatencyEdgesMs: [], dragLatencyCounts: [], ackLatencyCounts: [],
      server: nil, loadClient: nil, steps: [], best: nil, notes: [])
    result.join = join.map { JoinTimes(connected: clients, joinSeconds: $0, spanSeconds: $0) }
    return result
  }

  @Test("The join ratio is one room's join time over that of the most rooms with the same clients")
  func joinRatio() {
    let report = LoadReport(runs: [
      result("join-1x4000", clients: 4_000, rooms: 1, join: 12),
      result("join-40x100", clients: 4_000, rooms: 40, join: 3),
    ])
    #expect(report.scale.joinRatio == 4)
    #expect(report.scale.joinPair == ["join-1x4000", "join-40x100"])
    #expect(report.markdown.contains("Join ratio (join-1x4000 ÷ join-40x100): 4.00× ✗"))
  }

  @Test("Isolation rounds pair by number; the ratio is the mean p99 with the loader over the mean without")
  func isolationRatio() {
    let report = LoadReport(runs: [
      result("iso-off-1", clients: 100, rooms: 1, p99: 2), result("iso-on-1", clients: 100, rooms: 1, p99: 3),
      result("iso-off-2", clients: 100, rooms: 1, p99: 2), result("iso-on-2", clients: 100, rooms: 1, p99: 2),
    ])
    #expect(report.scale.isolationWithout.count == 2)
    #expect(report.scale.isolationWith.count == 2)
    #expect(report.scale.isolationRatio.map { abs($0 - 1.25) < 0.05 } == true)
    #expect(report.markdown.contains("Isolation (mean drag p99 with the loader ÷ without):"))
  }
}
