import Testing

@testable import ReorderLoad

@Suite("Frames, targets and configuration")
struct ParsingTests {
  func scan<T>(_ text: String, _ body: (FrameScanner) -> T) -> T {
    var text = text
    return text.withUTF8 { body(FrameScanner(bytes: $0)) }
  }

  @Test("A drags frame yields every stamp, skipping values that are not the tool's")
  func dragStamps() {
    let frame =
      #"{"type":"drags","updates":[{"session":"a","t":"3.14.123456"},{"session":"b","t":null},"#
      + #"{"session":"c","t": "4.0.99"},{"t":"x.1.2"}]}"#
    let stamps: [DragStamp] = scan(frame) { scanner in
      var found: [DragStamp] = []
      scanner.forEachDragStamp { found.append($0) }
      return found
    }
    #expect(stamps == [DragStamp(drag: 3, seq: 14, sent: 123_456), DragStamp(drag: 4, seq: 0, sent: 99)])
    #expect(scan(frame) { LoadShard.frameType($0) } == .drags)
  }

  @Test("An applied frame gives its id and seq, whatever the key order")
  func applied() {
    let frame = #"{"seq":42,"type":"applied","op":{"kind":"move","item":"x"},"id":"m1.2.3","by":"s"}"#
    #expect(scan(frame) { LoadShard.frameType($0) } == .applied)
    #expect(scan(frame) { $0.string("id") } == "m1.2.3")
    #expect(scan(frame) { $0.integer("seq") } == 42)
    #expect(MoveStamp("m1.2.3") == MoveStamp(client: 1, number: 2, sent: 3))
    #expect(MoveStamp("seed0.1") == nil)
  }

  @Test("Unknown and malformed frames are recognised as such, not crashed on")
  func malformed() {
    for frame in ["", "{", #"{"type":}"#, #"{"type":"peer"}"#, "not json", #"{"type":"drags"#] {
      #expect(scan(frame) { LoadShard.frameType($0) } != .applied)
      let count = scan(frame) { scanner in
        var count = 0
        scanner.forEachDragStamp { _ in count += 1 }
        return count
      }
      #expect(count == 0)
    }
  }

  @Test("Target URLs parse into scheme, host and port")
  func targets() throws {
    let target = try LoadTarget(url: "ws://127.0.0.1:8080")
    #expect(target.scheme == "ws" && target.host == "127.0.0.1" && target.port == 8080)
    #expect(try LoadTarget(url: "http://localhost:9/x").origin == "ws://localhost:9")
    #expect(try LoadTarget(url: "wss://[::1]:443").host == "::1")
    #expect(try LoadTarget(url: "ws://127.0.0.1:8080").roomURL("r1") == "ws://127.0.0.1:8080/ws/r1")
    for bad in ["127.0.0.1:80", "ftp://x:1", "ws://:80", "ws://host:notaport", "ws://host:70000"] {
      #expect(throws: LoadError.self) { try LoadTarget(url: bad) }
    }
  }

  @Test("Only loopback targets are accepted without --allow-remote")
  func loopback() throws {
    #expect(LoadTarget.isLoopback(host: "127.0.0.1"))
    #expect(LoadTarget.isLoopback(host: "127.1.2.3"))
    #expect(LoadTarget.isLoopback(host: "::1"))
    #expect(LoadTarget.isLoopback(host: "localhost"))
    #expect(!LoadTarget.isLoopback(host: "10.0.0.1"))
    #expect(!LoadTarget.isLoopback(host: "::2"))
    var configuration = LoadConfiguration()
    configuration.url = "ws://192.0.2.1:80"
    #expect(throws: LoadError.remoteTargetRefused("192.0.2.1")) {
      try LoadRunner(configuration: configuration, makeContext: { throw LoadError.io("unused") })
    }
    configuration.allowRemote = true
    _ = try LoadRunner(configuration: configuration, makeContext: { throw LoadError.io("unused") })
  }

  @Test("Inconsistent configurations are refused with every problem named")
  func problems() {
    var configuration = LoadConfiguration()
    configuration.clients = 2
    configuration.rooms = 3
    configuration.mode = .mirror
    configuration.moveRate = 5
    let problems = configuration.problems()
    #expect(problems.count == 2)
    #expect(problems.contains { $0.contains("--rooms") })
  }

  @Test("The plan spreads clients, draggers and seeders evenly over rooms")
  func plan() {
    var configuration = LoadConfiguration()
    configuration.clients = 1_000
    configuration.rooms = 100
    configuration.draggers = -1
    let plan = RoomPlan(configuration)
    #expect(plan.clientsOfRoom.allSatisfy { $0.count == 10 })
    #expect(plan.initialDraggers.count == 1_000)
    #expect(plan.seeders == Array(0..<100))
    #expect(plan.receivers(of: 5) == 9)
    #expect(plan.maxDraggersPerRoom == 10)
    #expect(plan.positionInRoom(205) == 2)
  }

  @Test("Process stat and status lines are read even with spaces in the command name")
  func procfs() {
    let stat = "123 (my (odd) name) S 1 2 3 4 5 6 7 8 9 10 250 50 0 0 20 0 1 0 100 1000 10"
    let seconds = ProcessSampler.cpuSeconds(stat: stat)
    #expect(seconds != nil)
    #expect(ProcessSampler.rssBytes(status: "Name:\tx\nVmRSS:\t  2048 kB\n") == 2_097_152)
    #expect(ProcessSampler.rssBytes(status: "Name:\tx\n") == nil)
  }
}
