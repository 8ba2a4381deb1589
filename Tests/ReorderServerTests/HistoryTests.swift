import Foundation
import ReorderRooms
import TestSupport
import Testing

@testable import ReorderServer

/// Who moved what and when: `GET …/history`, `GET …?at=SEQ`, and the websocket's `history`, on one
/// node in-process (with a restart and a trimmed log) and in cluster mode over real sockets.
@Suite("History with authors", .serialized)
struct HistoryTests {
  typealias Server = APIWriteTests.Server

  /// The seqs of a history answer's entries.
  static func seqs(_ json: JSONValue?) -> [Int] {
    guard case .array(let entries)? = json?["entries"] else { return [] }
    return entries.compactMap { $0["seq"]?.numberValue.map(Int.init) }
  }

  /// The entry of `seq` in a history answer.
  static func entry(_ json: JSONValue?, _ seq: Int) -> JSONValue? {
    guard case .array(let entries)? = json?["entries"] else { return nil }
    return entries.first { $0["seq"]?.numberValue == Double(seq) }
  }

  /// Whether `text` is an RFC 3339 UTC time within `seconds` of now.
  static func isRecent(_ text: JSONValue?, within seconds: Double = 300) -> Bool {
    guard let text = text?.stringValue else { return false }
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    guard text.hasSuffix("Z"), let date = formatter.date(from: text) else { return false }
    return abs(date.timeIntervalSinceNow) < seconds
  }

  @Test(
    "history names who made each op and when, newest first, in pages; ?at= is each step's board; both after a restart")
  func oneNode() throws {
    let server = try Server()
    #expect(try server.call("PUT", "/api/v1/boards/plan", body: APIWriteTests.board).status == 201)  // ops 1-6
    let ana = try server.join(room: "plan", client: "c-ana", name: "Ana")
    ana.op("c-ana:1", Ops.move("b", list: "todo", before: "a"))  // 7
    _ = try ana.applied(id: "c-ana:1")
    ana.op("c-ana:2", Ops.move("a", list: "todo", before: "b"))  // 8
    _ = try ana.applied(id: "c-ana:2")
    ana.close()
    let posted = try server.call(
      "POST", "/api/v1/boards/plan/ops",
      body: #"{"ops":[{"id":"p1","op":{"kind":"move","item":"b","list":"todo","before":"a"}}]}"#)
    #expect(posted.status == 200)  // 9

    func check() throws {
      let newest = try server.call("GET", "/api/v1/boards/plan/history?limit=2")
      #expect(newest.status == 200)
      #expect(newest.json?["room"] == .string("plan"))
      #expect(Self.seqs(newest.json) == [9, 8])
      #expect(newest.json?["next"]?.numberValue == 8)
      let api = Self.entry(newest.json, 9)
      #expect(api?["actor"] == .object([("sub", .null), ("name", .null), ("via", .string("api"))]))
      let moved = Self.entry(newest.json, 8)
      #expect(moved?["actor"] == .object([("sub", .null), ("name", .string("Ana"))]))
      #expect(moved?["op"]?["kind"] == .string("move") && moved?["op"]?["item"] == .string("a"))
      #expect(moved?["op"]?["from"] != nil, "the resolved op, as in applied.op")
      #expect(Self.isRecent(moved?["at"]) && Self.isRecent(api?["at"]))
      let older = try server.call("GET", "/api/v1/boards/plan/history?before=8")
      #expect(Self.seqs(older.json) == [7, 6, 5, 4, 3, 2, 1])
      #expect(older.json?["next"] == .null)
      #expect(Self.entry(older.json, 7)?["actor"]?["name"] == .string("Ana"))
      #expect(Self.entry(older.json, 1)?["actor"]?["via"] == .string("api"), "the ops a PUT seeded")

      let steps: [(at: Int, todo: [String])] = [(6, ["a", "b"]), (7, ["b", "a"]), (8, ["a", "b"]), (9, ["b", "a"])]
      for step in steps {
        let board = try server.call("GET", "/api/v1/boards/plan?at=\(step.at)")
        #expect(board.status == 200)
        #expect(board.json?["seq"]?.numberValue == Double(step.at))
        #expect(boardItems(board.json?["board"], list: "todo") == step.todo, "at \(step.at)")
      }
      let empty = try server.call("GET", "/api/v1/boards/plan?at=0")
      #expect(empty.status == 200 && empty.json?["board"]?["lists"] == .array([]))
      #expect(try server.call("GET", "/api/v1/boards/plan?at=10").status == 404)
      let current = try server.call("GET", "/api/v1/boards/plan")
      #expect(try server.call("GET", "/api/v1/boards/plan?at=9").json == current.json)
    }
    try check()
    try server.restart()
    try check()

    #expect(try server.call("GET", "/api/v1/boards/nothing/history").status == 404)
    #expect(try server.call("GET", "/api/v1/boards/nothing?at=1").status == 404)
    for bad in ["limit=0", "limit=1001", "before=0", "before=x", "limit=-1"] {
      let answer = try server.call("GET", "/api/v1/boards/plan/history?\(bad)")
      #expect(answer.status == 400, "\(bad)")
      #expect(answer.headers["content-type"] == "application/problem+json")
    }
    #expect(try server.call("GET", "/api/v1/boards/plan?at=x").status == 400)
    #expect(try server.call("GET", "/api/v1/boards/plan/history", key: nil).status == 401)
  }

  @Test("a trimmed log: history and boards reach back to the kept log's base snapshot; 410 before it")
  func trimmed() throws {
    let server = try Server()
    let seed =
      #"{"lists":[{"id":"l","title":"L","layout":"list","items":[{"id":"x","fields":{}},{"id":"y","fields":{}}]}]}"#
    #expect(try server.call("PUT", "/api/v1/boards/long", body: seed).status == 201)  // ops 1-3
    // 12,000 moves: the store keeps 10,000 ops before its latest snapshot, so the early ones go.
    for batch in 0..<12 {
      let ops = (0..<1_000).map { n in
        #"{"id":"m\#(batch * 1_000 + n)","op":{"kind":"move","item":"\#(n % 2 == 0 ? "x" : "y")","list":"l"}}"#
      }
      let answer = try server.call(
        "POST", "/api/v1/boards/long/ops", body: #"{"ops":[\#(ops.joined(separator: ","))]}"#)
      try #require(answer.status == 200)
    }
    let gone = try server.call("GET", "/api/v1/boards/long/history?before=100")
    #expect(gone.status == 410)
    let earliest = try #require(gone.json?["earliest"]?.numberValue.map(Int.init))
    #expect(earliest > 100 && earliest <= 12_003 - 10_000 + 1, "at least the retained 10,000 ops kept: \(earliest)")
    let first = try server.call("GET", "/api/v1/boards/long/history?before=\(earliest + 2)&limit=5")
    #expect(Self.seqs(first.json) == [earliest + 1, earliest], "the page ends where the kept log does")
    #expect(first.json?["next"] == .null)
    #expect(try server.call("GET", "/api/v1/boards/long/history?before=\(earliest)").status == 410)
    // The board right before the first kept op is the base snapshot's.
    #expect(try server.call("GET", "/api/v1/boards/long?at=\(earliest - 1)").status == 200)
    let before = try server.call("GET", "/api/v1/boards/long?at=\(earliest - 2)")
    #expect(before.status == 410, "\(String(describing: before.json))")
    #expect(try server.call("GET", "/api/v1/boards/long?at=1").status == 200, "op 1 and no snapshot before it")
    // Each move of x to the end: after an even op count since 3 the order is the seed's.
    for at in [earliest + 1, 7_000, 12_002] {
      let board = try server.call("GET", "/api/v1/boards/long?at=\(at)")
      let expected = (at - 3) % 2 == 0 ? ["x", "y"] : ["y", "x"]
      #expect(boardItems(board.json?["board"], list: "l") == expected, "at \(at)")
    }
    let current = try server.call("GET", "/api/v1/boards/long")
    #expect(try server.call("GET", "/api/v1/boards/long?at=12003").json == current.json)
  }

  @Test("the websocket's history: a page newest first with the board before it, actors without sub; not before hello")
  func overTheWebsocket() throws {
    let server = try Server()
    #expect(try server.call("PUT", "/api/v1/boards/plan", body: APIWriteTests.board).status == 201)  // ops 1-6
    let ana = try server.join(room: "plan", client: "c-ana", name: "Ana")
    ana.op("c-ana:1", Ops.move("b", list: "todo", before: "a"))  // 7
    _ = try ana.applied(id: "c-ana:1")
    ana.send(.object([("type", .string("history")), ("limit", .number(2))]))
    let page = try ana.next(type: "history")
    #expect(Self.seqs(page) == [7, 6])
    #expect(page["next"]?.numberValue == 6)
    #expect(Self.entry(page, 7)?["actor"] == .object([("name", .string("Ana"))]), "no sub over the websocket")
    #expect(Self.entry(page, 6)?["actor"] == .object([("name", .null), ("via", .string("api"))]))
    #expect(page["base"]?["seq"]?.numberValue == 5)
    #expect(boardItems(page["base"]?["board"], list: "todo") == ["a", "b"], "op 6 is the assignment")
    ana.send(.object([("type", .string("history")), ("before", .number(3))]))
    let oldest = try ana.next(type: "history")
    #expect(Self.seqs(oldest) == [2, 1])
    #expect(oldest["next"] == .null)
    #expect(oldest["base"]?["seq"]?.numberValue == 0)
    #expect(oldest["base"]?["board"]?["lists"] == .array([]))
    // Requests sent together are answered in request order (each reads the store in several steps).
    for before in [7, 3, 1, 5] {
      ana.send(.object([("type", .string("history")), ("before", .number(Double(before)))]))
    }
    var answered: [[Int]] = []
    for _ in 0..<4 { answered.append(Self.seqs(try ana.next(type: "history"))) }
    #expect(answered == [[6, 5, 4, 3, 2, 1], [2, 1], [], [4, 3, 2, 1]])
    // A burst beyond the requests one connection may have waiting: the rest are rate_limited,
    // the connection lives on, and the waiting ones are answered.
    let burst = (0..<40).map { _ in JSONValue.object([("type", .string("history")), ("limit", .number(1))]).jsonText }
    for frame in burst { ana.send(frame) }
    var histories = 0
    var refused = 0
    while histories + refused < 40 {
      let frame = try ana.next { $0["type"] == .string("history") || $0["type"] == .string("error") }
      if frame["type"] == .string("history") {
        histories += 1
      } else {
        #expect(frame["code"] == .string("rate_limited"), "\(frame)")
        refused += 1
      }
    }
    #expect(
      histories >= RoomsDriver.maxWaitingHistoryReads && refused >= 20, "\(histories) answered, \(refused) refused")
    ana.send(.object([("type", .string("history")), ("limit", .number(201))]))
    #expect(try ana.next(type: "error")["code"] == .string("invalid_value"))

    let early = try server.connect(room: "plan")
    early.send(.object([("type", .string("history"))]))
    #expect(try early.next(type: "error")["code"] == .string("not_joined"))
  }

  @Test(
    "cluster mode: history and ?at= on any node, a fresh one too, name the members and the API of both nodes, back to op 1"
  )
  func cluster() throws {
    let pair = try ClusterAPIPair(snapshotEvery: 5)
    #expect(try pair.call(pair.a, "PUT", "/api/v1/boards/plan", body: APIWriteTests.board).status == 201)  // 1-6
    let onB = try RoomClient.join(port: pair.b.port, room: "plan", client: "c-bo", name: "Bo")
    onB.op("c-bo:1", Ops.move("b", list: "todo", before: "a"))  // 7
    _ = try onB.applied(id: "c-bo:1")
    let posted = try pair.call(
      pair.a, "POST", "/api/v1/boards/plan/ops",
      body: #"{"ops":[{"id":"p1","op":{"kind":"move","item":"a","list":"todo","before":"b"}}]}"#)
    #expect(posted.status == 200)  // 8
    _ = try onB.applied(id: "p1")
    // Ops 9-20 alternate the two: snapshots every 5 ops give the log several bases.
    for n in 0..<12 {
      onB.op("c-bo:m\(n)", Ops.move(n % 2 == 0 ? "b" : "a", list: "todo", before: n % 2 == 0 ? "a" : "b"))
      _ = try onB.applied(id: "c-bo:m\(n)")
    }
    // A node started now loads the room from its latest snapshot: its window starts there.
    let fresh = try ClusterAPIPair.node(pair.redis, pair.directory, demo: false, snapshotEvery: 5)
    defer { fresh.server.shutdown() }
    for node in [pair.a, pair.b, fresh] {
      var seqs: [Int] = []
      var before: Int?
      var pages = 0
      repeat {
        let path = "/api/v1/boards/plan/history?limit=4" + (before.map { "&before=\($0)" } ?? "")
        let page = try pair.call(node, "GET", path)
        #expect(page.status == 200, "\(path): \(String(describing: page.json))")
        seqs += Self.seqs(page.json)
        before = page.json?["next"]?.numberValue.map(Int.init)
        if let seven = Self.entry(page.json, 7) {
          #expect(seven["actor"] == .object([("sub", .null), ("name", .string("Bo"))]))
          #expect(Self.isRecent(seven["at"]))
          #expect(seven["op"]?["from"] != nil, "resolved as every node resolves it")
        }
        if let eight = Self.entry(page.json, 8) { #expect(eight["actor"]?["via"] == .string("api")) }
        if let one = Self.entry(page.json, 1) { #expect(one["op"]?["kind"] == .string("createList")) }
        pages += 1
      } while before != nil && pages < 10
      #expect(seqs == Array((1...20).reversed()), "every op, newest first, across the window and the log")
      let boards: [(at: Int, todo: [String])] = [
        (6, ["a", "b"]), (7, ["b", "a"]), (8, ["a", "b"]), (9, ["b", "a"]),
        (14, ["a", "b"]), (20, ["a", "b"]),
      ]
      for (at, todo) in boards {
        let board = try pair.call(node, "GET", "/api/v1/boards/plan?at=\(at)")
        #expect(board.status == 200, "at \(at)")
        #expect(boardItems(board.json?["board"], list: "todo") == todo, "at \(at)")
      }
    }
    onB.send(.object([("type", .string("history")), ("limit", .number(2))]))
    let page = try onB.next(type: "history")
    #expect(Self.seqs(page) == [20, 19])
    #expect(boardItems(page["base"]?["board"], list: "todo") == ["a", "b"], "the board at 18")
    onB.send(.object([("type", .string("history")), ("before", .number(3))]))
    let oldest = try onB.next(type: "history")
    #expect(Self.seqs(oldest) == [2, 1], "older than the window: rebuilt from the log")
    #expect(oldest["base"]?["seq"]?.numberValue == 0)
    onB.close()
  }
}
