import Foundation
import ReorderRooms
import TestSupport
import Testing

@testable import ReorderServer

/// The API's writes (in-process): `PUT` and `DELETE /api/v1/boards/{room}`, `POST …/ops`, and the
/// paginated board list, each with its documented errors.
@Suite("HTTP API writes", .serialized)
struct APIWriteTests {
  /// A server without tokens, with an API key, on a data directory (so a restart can be checked).
  final class Server: RoomServer {
    let directory: TemporaryDirectory
    var server: InProcessServer?
    init(demo: Bool = false, maxItems: Int? = nil, historyOps: Int? = nil) throws {
      directory = try TemporaryDirectory()
      try directory.write("keys", APITests.key + "\n")
      try start(demo: demo, maxItems: maxItems, historyOps: historyOps)
    }
    func start(demo: Bool = false, maxItems: Int? = nil, historyOps: Int? = nil) throws {
      let path = directory.path
      server = try InProcessServer(data: path + "/data") { configuration in
        configuration.demo = demo
        configuration.apiKeyFile = path + "/keys"
        if let maxItems { configuration.maxItemsPerRoom = maxItems }
        if let historyOps { configuration.historyOps = historyOps }
      }
    }
    func restart() throws {
      server = nil
      try start()
    }
    deinit {
      server = nil
      directory.remove()
    }
    func call(_ method: String, _ path: String, key: String? = APITests.key, body: String? = nil) throws
      -> (status: Int, json: JSONValue?, headers: [String: String])
    {
      try APITests().call(self, method, path, key: key, body: body)
    }
    func connect(room: String) throws -> RoomClient { try server!.connect(room: room) }
    func http(_ method: String, _ rawPath: String, headers: [String: String], body: [UInt8]?) throws -> HTTPReply {
      try server!.http(method, rawPath, headers: headers, body: body)
    }
    func waitUntil(timeout: Double, _ condition: () -> Bool) -> Bool { server!.waitUntil(timeout: timeout, condition) }
  }

  static let board = #"""
    {"lists":[{"id":"todo","title":"To do","layout":"list","items":[{"id":"a","fields":{"title":"A","price":3}},
    {"id":"b","fields":{"title":"B"}}]},{"id":"people","title":"People","layout":"grid","items":[{"id":"ann",
    "fields":{"title":"Ann"}}]}],"assignments":[{"item":"a","target":"ann"}]}
    """#

  @Test("PUT creates a board (201) in one durable batch that a join and a restart see; 409 when it exists")
  func create() throws {
    let server = try Server()
    let created = try server.call("PUT", "/api/v1/boards/plan", body: Self.board)
    #expect(created.status == 201)
    #expect(created.json?["room"] == .string("plan"))
    let seq = created.json?["seq"]?.numberValue
    #expect(seq == 6)  // 2 lists + 3 items + 1 assignment
    #expect(boardItems(created.json?["board"], list: "todo") == ["a", "b"])
    #expect(created.json?["board"]?["totals"]?["ann"]?["count"] == .number(1))
    let client = try server.join(room: "plan", client: "c")
    #expect(client.welcome["seq"]?.numberValue == seq)
    #expect(client.welcome["epoch"] == created.json?["epoch"])
    #expect(boardItems(client.welcome["board"], list: "people") == ["ann"])
    client.close()
    let again = try server.call("PUT", "/api/v1/boards/plan", body: Self.board)
    #expect(again.status == 409)
    #expect(again.headers["content-type"] == "application/problem+json")
    try server.restart()
    let read = try server.call("GET", "/api/v1/boards/plan")
    #expect(read.status == 200)
    #expect(read.json?["seq"]?.numberValue == seq)
    #expect(read.json?["epoch"] == created.json?["epoch"])
    #expect(boardItems(read.json?["board"], list: "todo") == ["a", "b"])
  }

  @Test("the ops a PUT seeds count in reorder_ops_applied_total, a replace's too")
  func seededOpsAreCounted() throws {
    let server = try Server()
    let metrics = MetricsTests()
    func applied() throws -> Double? {
      metrics.value(
        try metrics.parsed(try server.get("/metrics").text), "reorder_ops_applied_total{}")
    }
    #expect(try applied() == 0)
    #expect(try server.call("PUT", "/api/v1/boards/plan", body: Self.board).status == 201)
    #expect(try applied() == 6, "2 lists, 3 items, 1 assignment")
    #expect(try server.call("PUT", "/api/v1/boards/plan?replace=true", body: Self.board).status == 200)
    #expect(try applied() == 12)
    #expect(try server.call("PUT", "/api/v1/boards/plan", body: Self.board).status == 409)
    #expect(try applied() == 12, "a 409 applied nothing")
  }

  @Test("PUT refuses what an op would refuse: 422 with the code and where, 400 for a body that is not an object")
  func createInvalid() throws {
    let server = try Server(maxItems: 2)
    let cases: [(body: String, code: String, at: String)] = [
      (
        #"{"lists":[{"id":"l","title":"L","layout":"list","items":[{"id":"x"},{"id":"x"}]}]}"#, "duplicate_item",
        "lists[0].items[1]"
      ),
      (
        #"{"lists":[{"id":"l","title":"L","layout":"list"},{"id":"l","title":"M","layout":"grid"}]}"#, "duplicate_list",
        "lists[1]"
      ),
      (#"{"lists":[{"id":"l","title":"L","layout":"table"}]}"#, "invalid_value", "lists[0]"),
      (
        #"{"lists":[{"id":"l","title":"L","layout":"list","items":[{"id":"x"},{"id":"y"},{"id":"z"}]}]}"#, "item_limit",
        "lists[0].items[2]"
      ),
      (
        #"{"lists":[{"id":"l","title":"L","layout":"list","items":[{"id":"x"}]}],"assignments":[{"item":"x","target":"nope"}]}"#,
        "unknown_item", "assignments[0]"
      ),
      (#"{"lists":[{"title":"L","layout":"list"}]}"#, "missing_field", "lists[0]"),
      (#"{"lists":{}}"#, "wrong_type", "lists"),
      (#"{"lists":5}"#, "wrong_type", "lists"),
      (#"{"lists":[{"id":"l","title":"L","layout":"list","items":5}]}"#, "wrong_type", "lists[0].items"),
      (#"{"lists":[{"id":"l","title":"L","layout":"list"}],"assignments":{}}"#, "wrong_type", "assignments"),
      (#"{}"#, "missing_field", "lists"),
      // A board with no list: it could not be told from one that does not exist (nothing is stored).
      (#"{"lists":[]}"#, "invalid_value", "lists"),
    ]
    for (body, code, at) in cases {
      let reply = try server.call("PUT", "/api/v1/boards/bad", body: body)
      #expect(reply.status == 422, "\(body)")
      #expect(reply.json?["code"] == .string(code), "\(body): \(String(describing: reply.json))")
      #expect(reply.json?["at"] == .string(at), "\(body)")
    }
    let huge = try server.call("PUT", "/api/v1/boards/bad", body: String(repeating: " ", count: (1 << 20) + 1))
    #expect(huge.status == 413)
    #expect(huge.headers["content-type"] == "application/problem+json")
    #expect(huge.json?["status"] == .number(413))
    #expect(try server.call("PUT", "/api/v1/boards/bad", body: "[1]").status == 400)
    #expect(try server.call("PUT", "/api/v1/boards/bad", body: "").status == 400)
    #expect(try server.call("PUT", "/api/v1/boards/bad%20name", body: "{}").status == 404)
    #expect(try server.call("PUT", "/api/v1/boards/bad", key: nil, body: Self.board).status == 401)
    #expect(try server.call("GET", "/api/v1/boards/bad").status == 404)
  }

  @Test("PUT ?replace=true replaces a board (200, new epoch); its connected clients get a fresh welcome")
  func replace() throws {
    let server = try Server(demo: true)
    let old = try server.join(room: "cities", client: "c")
    let oldEpoch = old.welcome["epoch"]
    old.op("c:1", Ops.move("paris", list: "cities"))
    _ = try old.applied(id: "c:1")
    let body = #"{"lists":[{"id":"only","title":"Only","layout":"grid","items":[{"id":"x","fields":{}}]}]}"#
    #expect(try server.call("PUT", "/api/v1/boards/cities", body: body).status == 409)
    let replaced = try server.call("PUT", "/api/v1/boards/cities?replace=true", body: body)
    #expect(replaced.status == 200)
    #expect(replaced.json?["seq"] == .number(2))
    #expect(replaced.json?["epoch"] != oldEpoch)
    let welcome = try old.next(type: "welcome")
    #expect(welcome["epoch"] == replaced.json?["epoch"])
    #expect(welcome["seq"] == .number(2))
    #expect(welcome["session"] == old.welcome["session"])
    #expect(boardItems(welcome["board"], list: "only") == ["x"])
    // The connection goes on editing the new board.
    old.op("c:2", Ops.move("x", list: "only"))
    #expect(try old.applied(id: "c:2")["seq"] == .number(3))
    // A missing board with replace=true is created.
    #expect(try server.call("PUT", "/api/v1/boards/fresh?replace=true", body: body).status == 201)
    old.close()
  }

  @Test(
    "DELETE closes the board's connections with 4404 and removes it from storage and the list; 404 if it never existed")
  func delete() throws {
    let server = try Server(demo: true)
    let a = try server.join(room: "food", client: "a")
    let b = try server.join(room: "food", client: "b")
    let deleted = try server.call("DELETE", "/api/v1/boards/food")
    #expect(deleted.status == 204)
    for client in [a, b] {
      let closed = client.waitForClose(timeout: 10)
      #expect(closed?.code == 4404)
      #expect(closed?.reason == "board deleted")
    }
    #expect(try server.call("GET", "/api/v1/boards/food").status == 404)
    #expect(try server.call("GET", "/api/v1/boards/food/ops?since=0").status == 404)
    let list = try server.call("GET", "/api/v1/boards")
    guard case .array(let boards)? = list.json?["boards"] else {
      Issue.record("no list")
      return
    }
    #expect(!boards.contains { $0["room"] == .string("food") })
    #expect(try server.call("DELETE", "/api/v1/boards/food").status == 404)
    #expect(try server.call("DELETE", "/api/v1/boards/never-was").status == 404)
    // A later join starts an empty board with a new epoch; a restart does not bring the old one back.
    let c = try server.join(room: "food", client: "c")
    #expect(c.welcome["seq"] == .number(0))
    #expect(boardItems(c.welcome["board"], list: "foods").isEmpty)
    c.close()
    try server.restart()
    #expect(try server.call("GET", "/api/v1/boards/food").status == 404)
    #expect(try server.call("PUT", "/api/v1/boards/food", body: Self.board).status == 201)
  }

  @Test("POST ops applies them in order as by api, once durable; the same id again answers the same result")
  func ops() throws {
    let server = try Server(demo: true)
    let watcher = try server.join(room: "cities", client: "w")
    let base = watcher.welcome["seq"]?.numberValue ?? 0
    let body = """
      {"ops":[{"id":"o1","op":\(Ops.move("paris", list: "cities").jsonText)},
      {"id":"o2","op":\(Ops.move("ghost", list: "cities").jsonText)},
      {"id":"o3","op":{"kind":"fly"}},
      {"id":"o4","op":\(Ops.insert("rome", list: "cities", after: "tokyo").jsonText)}]}
      """
    let reply = try server.call("POST", "/api/v1/boards/cities/ops", body: body)
    #expect(reply.status == 200)
    guard case .array(let results)? = reply.json?["results"], results.count == 4 else {
      Issue.record("results: \(String(describing: reply.json))")
      return
    }
    #expect(results[0]["type"] == .string("applied"))
    #expect(results[0]["seq"] == .number(base + 1))
    #expect(results[0]["op"]?["item"] == .string("paris"))
    #expect(results[1]["type"] == .string("rejected"))
    #expect(results[1]["code"] == .string("unknown_item"))
    #expect(results[2]["code"] == .string("unknown_kind"))
    #expect(results[3]["seq"] == .number(base + 2))
    // Connected clients see them live, by api.
    let first = try watcher.applied(id: "o1")
    #expect(first["by"] == .string("api"))
    #expect(try watcher.applied(id: "o4")["seq"] == .number(base + 2))
    // Idempotent by id: the same results, applied once.
    let again = try server.call("POST", "/api/v1/boards/cities/ops", body: body)
    guard case .array(let repeated)? = again.json?["results"] else { return }
    #expect(repeated[0] == results[0])
    #expect(repeated[3] == results[3])
    let read = try server.call("GET", "/api/v1/boards/cities")
    #expect(read.json?["seq"] == .number(base + 2))
    // A board that is not loaded is loaded for it (and unloaded later as any idle room).
    let numbers = try server.call(
      "POST", "/api/v1/boards/numbers/ops", body: #"{"ops":[{"id":"n","op":{"kind":"delete","item":"n1"}}]}"#)
    guard case .array(let deleted)? = numbers.json?["results"] else { return }
    #expect(deleted.first?["seq"] == .number(102))
    // The request's errors.
    #expect(try server.call("POST", "/api/v1/boards/cities/ops", body: "nope").status == 400)
    let shapes: [(body: String, code: String, at: String)] = [
      (#"{"ops":{}}"#, "wrong_type", "ops"),
      (#"{}"#, "missing_field", "ops"),
      (#"{"ops":[{"op":{}}]}"#, "missing_field", "ops[0].id"),
      (#"{"ops":[{"id":5,"op":{}}]}"#, "wrong_type", "ops[0].id"),
      (#"{"ops":[{"id":"","op":{}}]}"#, "invalid_value", "ops[0].id"),
      (#"{"ops":[{"id":"a","op":{}},{"id":"b","op":[]}]}"#, "wrong_type", "ops[1].op"),
      (#"{"ops":[{"id":"a"}]}"#, "missing_field", "ops[0].op"),
    ]
    for (body, code, at) in shapes {
      let reply = try server.call("POST", "/api/v1/boards/cities/ops", body: body)
      #expect(reply.status == 422, "\(body)")
      #expect(reply.json?["code"] == .string(code), "\(body): \(String(describing: reply.json))")
      #expect(reply.json?["at"] == .string(at), "\(body)")
    }
    let tooMany =
      "{\"ops\":["
      + (0...1_000).map { #"{"id":"x\#($0)","op":{"kind":"delete","item":"tokyo"}}"# }
      .joined(separator: ",") + "]}"
    #expect(try server.call("POST", "/api/v1/boards/cities/ops", body: tooMany).status == 413)
    watcher.close()
  }

  @Test("GET boards lists every board with seq, epoch, lists, items, online, updated_at, a page at a time")
  func list() throws {
    let server = try Server(demo: true)
    let c = try server.join(room: "home", client: "c")
    var names: [String] = []
    var cursor: String?
    var pages = 0
    repeat {
      let path = "/api/v1/boards?limit=3" + (cursor.map { "&cursor=\($0)" } ?? "")
      let page = try server.call("GET", path)
      #expect(page.status == 200)
      guard case .array(let boards)? = page.json?["boards"] else { break }
      #expect(boards.count <= 3)
      for board in boards {
        for field in ["room", "seq", "epoch", "lists", "items", "online", "updated_at"] {
          #expect(board[field] != nil, "\(field) missing in \(board)")
        }
        if board["room"] == .string("numbers") {
          #expect(board["seq"] == .number(101))
          #expect(board["lists"] == .number(1))
          #expect(board["items"] == .number(100))
        }
        if board["room"] == .string("home") { #expect(board["online"] == .number(1)) }
        let stamp = board["updated_at"]?.stringValue ?? ""
        #expect(stamp.hasSuffix("Z") && stamp.count >= 20, "\(stamp)")
      }
      names += boards.compactMap { $0["room"]?.stringValue }
      cursor = page.json?["next"]?.stringValue
      pages += 1
    } while cursor != nil && pages < 10
    #expect(names == ["cities", "food", "home", "numbers"])
    #expect(pages == 2)
    #expect(try server.call("GET", "/api/v1/boards?limit=0").status == 400)
    #expect(try server.call("GET", "/api/v1/boards?cursor=%21%21").status == 400)
    c.close()
  }

  @Test("updated_at of a board nobody edits stays put: through a join without edits, a restart, a later list")
  func updatedAtOfUneditedBoards() throws {
    let server = try Server(demo: true)
    func stamps() throws -> [String: String] {
      guard case .array(let boards)? = try server.call("GET", "/api/v1/boards").json?["boards"] else { return [:] }
      var out: [String: String] = [:]
      for board in boards {
        if let room = board["room"]?.stringValue { out[room] = board["updated_at"]?.stringValue }
      }
      return out
    }
    let before = try stamps()
    #expect(before.count == 4)
    let c = try server.join(room: "food", client: "c")
    c.close()
    _ = server.waitUntil(timeout: 1.1) { false }  // the server runs for 1.1 s
    #expect(try stamps() == before)
    try server.restart()
    #expect(try stamps() == before)
    let edited = try server.call(
      "POST", "/api/v1/boards/food/ops", body: #"{"ops":[{"id":"u1","op":{"kind":"delete","item":"pizza"}}]}"#)
    #expect(edited.status == 200)
    // The summary is committed with the append or in the writer's next commit, just after.
    #expect(server.waitUntil(timeout: 5) { (try? stamps())?["food"] != before["food"] })
    let after = try stamps()
    #expect(after["food"] != before["food"])
    #expect(after.filter { $0.key != "food" } == before.filter { $0.key != "food" })
  }

  @Test("A re-sent id answers its first result after a restart, and beyond the ops kept in memory (read from the log)")
  func idempotentAcrossRestart() throws {
    let server = try Server(demo: true, historyOps: 2)
    func post(_ ids: ClosedRange<Int>) throws -> [JSONValue] {
      let ops = ids.map { #"{"id":"r\#($0)","op":\#(Ops.move("n\($0)", list: "numbers").jsonText)}"# }
      let reply = try server.call(
        "POST", "/api/v1/boards/numbers/ops", body: #"{"ops":[\#(ops.joined(separator: ","))]}"#)
      guard case .array(let results)? = reply.json?["results"] else { return [] }
      return results
    }
    let first = try post(1...6)
    #expect(first.map { $0["seq"] } == (102...107).map { .number(Double($0)) })
    #expect(try post(1...1) == [first[0]])
    // A reload keeps the frames of the last 2 ops (--history-ops): r1…r4 come from the log.
    try server.restart()
    #expect(try post(1...6) == first)
    #expect(try server.call("GET", "/api/v1/boards/numbers").json?["seq"] == .number(107))
  }
}
