import Foundation
import Testing

@testable import ReorderLoad

@Suite("Slow readers (--slow-readers)")
struct SlowReaderTests {
  @Test("The throttle lets a reader read freely before the traffic, then holds it to its byte rate")
  func throttle() {
    var throttle = ReadThrottle(bytesPerSecond: 1_000)
    let beforeTraffic = throttle.read(payload: 100_000, at: 0)
    #expect(!beforeTraffic)
    #expect(throttle.resumeTime == nil)
    throttle.start = 1_000_000
    // 98 bytes + a 2-byte header: 100 ms of budget, read 10 ms in: ahead, stop reading.
    let ahead = throttle.read(payload: 98, at: 1_010_000)
    #expect(ahead && throttle.paused)
    #expect(throttle.resumeTime == 1_100_000)
    // Stopped reading is not stopped twice; what lws had already read still counts.
    let again = throttle.read(payload: 98, at: 1_020_000)
    #expect(!again)
    #expect(throttle.resumeTime == 1_200_000)
    let early = throttle.resume(at: 1_199_999)
    let due = throttle.resume(at: 1_200_000)
    #expect(!early && due && !throttle.paused)
    // Behind its budget (a quiet second): reads on.
    let behind = throttle.read(payload: 98, at: 3_000_000)
    #expect(!behind)
  }

  @Test("A frame's bytes include its websocket header")
  func frameBytes() {
    #expect(ReadThrottle.frameBytes(payload: 125) == 127)
    #expect(ReadThrottle.frameBytes(payload: 126) == 130)
    #expect(ReadThrottle.frameBytes(payload: 70_000) == 70_010)
  }

  @Test("Slow readers are that fraction of the clients, never a dragger nor a room's first client")
  func plan() {
    var configuration = LoadConfiguration()
    configuration.clients = 1_000
    configuration.draggers = 10
    configuration.slowReaders = 0.1
    let plan = RoomPlan(configuration)
    #expect(plan.slowReaders.count == 100)
    #expect(Set(plan.slowReaders).count == 100)
    #expect(plan.slowReaders.allSatisfy { $0 >= 10 && $0 < 1_000 })

    configuration.clients = 20
    configuration.rooms = 4
    configuration.draggers = 2
    configuration.slowReaders = 0.5
    let rooms = RoomPlan(configuration)
    #expect(rooms.slowReaders.count == 10)
    #expect(Set(rooms.slowReaders).isDisjoint(with: rooms.seeders + rooms.initialDraggers))

    configuration.slowReaders = 1
    #expect(RoomPlan(configuration).slowReaders == Array(4..<20))
    configuration.slowReaders = 0
    #expect(RoomPlan(configuration).slowReaders.isEmpty)
  }

  @Test("Out-of-range slow-reader options are refused with their flag named")
  func problems() {
    var configuration = LoadConfiguration()
    configuration.slowReaders = 1.5
    configuration.slowReadBytesPerSecond = 0
    let problems = configuration.problems()
    #expect(problems.contains { $0.contains("--slow-readers") })
    #expect(problems.contains { $0.contains("--slow-read-bytes-per-second") })
    configuration.slowReaders = 0.1
    configuration.slowReadBytesPerSecond = 10_240
    #expect(configuration.problems().isEmpty)
    configuration.mode = .mirror
    #expect(configuration.problems() == ["--slow-readers needs the rooms protocol; drop --mirror"])
  }

  func run(server: FakeServer, _ adjust: (inout LoadConfiguration) -> Void) throws -> LoadResult {
    defer { server.stop() }
    var configuration = LoadConfiguration()
    configuration.url = "ws://127.0.0.1:9"
    configuration.progress = false
    configuration.durationSeconds = 1
    configuration.drainSeconds = 2
    configuration.connectTimeoutSeconds = 10
    configuration.clients = 20
    configuration.draggers = 2
    configuration.dragRate = 30
    configuration.slowReaders = 0.25
    configuration.slowReadBytesPerSecond = 200
    adjust(&configuration)
    let runner = try LoadRunner(configuration: configuration, makeContext: { server.makeContext() })
    return try runner.run()
  }

  @Test("The others' coverage counts only the clients that read at full speed; the slow ones are reported apart")
  func split() throws {
    let server = FakeServer(mode: .rooms)
    let result = try run(server: server) { _ in }
    let slow = try #require(result.slowReaders)
    #expect(slow.clients == 5)
    #expect(slow.otherClients == 15)
    #expect(slow.bytesPerSecond == 200)
    // Each update is due at the 15 fast clients but its dragger (14), at none of the 5 slow ones.
    let counters = result.counters
    #expect(counters.dragUpdatesExpected == counters.dragUpdatesSent * 14)
    #expect(counters.dragUpdatesLost == 0)
    // They really stopped reading, and read fewer frames than the others.
    #expect(slow.pauses > 0)
    #expect(server.pauses.snapshot > 0)
    #expect(slow.framesPerSecondPerClient > 0)
    #expect(slow.framesPerSecondPerClient < slow.otherFramesPerSecondPerClient)
    #expect(slow.dragAge.count > 0)
    #expect(slow.closes.isEmpty)
    #expect(result.textReport.contains("slow readers   5 reading at most 200 B/s"))
    let decoded = try JSONDecoder().decode(LoadResult.self, from: result.jsonData())
    #expect(decoded.slowReaders == slow)
  }

  @Test("Slow readers the server closes are counted by close code, and the others stay connected")
  func closed() throws {
    let server = FakeServer(mode: .rooms, maxHeldFrames: 5)
    let result = try run(server: server) { _ in }
    let slow = try #require(result.slowReaders)
    #expect(slow.closedByCode == ["1008": 5])
    #expect(slow.closes == ["1008 'outgoing queue overflow: fake'": 5])
    #expect(result.counters.unexpectedCloses == 5)
    #expect(result.counters.dragUpdatesLost == 0)
  }

  @Test("Without --slow-readers there is no slow-reader summary and every client is measured")
  func none() throws {
    let server = FakeServer(mode: .rooms)
    let result = try run(server: server) { $0.slowReaders = 0 }
    #expect(result.slowReaders == nil)
    #expect(result.counters.dragUpdatesExpected == result.counters.dragUpdatesSent * 19)
  }
}
