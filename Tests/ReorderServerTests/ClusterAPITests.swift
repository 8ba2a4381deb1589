import Foundation
import ReorderRedis
import ReorderRooms
import ReorderTransport
import TestSupport
import Testing

@testable import ReorderServer

/// Two in-process nodes in cluster mode with the HTTP API on, sharing one real `redis-server`
/// (free port, temp dir, appendfsync always; stopped by PID).
final class ClusterAPIPair {
  let redis: RedisServer
  let directory: TemporaryDirectory
  var a: TestServer
  var b: TestServer

  init(demo: Bool = false, snapshotEvery: Int? = nil) throws {
    redis = try RedisServer()
    directory = try TemporaryDirectory()
    try directory.write("keys", APITests.key + "\n")
    a = try Self.node(redis, directory, demo: demo, snapshotEvery: snapshotEvery)
    b = try Self.node(redis, directory, demo: demo, snapshotEvery: snapshotEvery)
  }

  static func node(_ redis: RedisServer, _ directory: TemporaryDirectory, demo: Bool, snapshotEvery: Int?) throws
    -> TestServer
  {
    let path = directory.path
    return try TestServer {
      $0.redis = "redis://127.0.0.1:\(redis.port)"
      $0.apiKeyFile = path + "/keys"
      $0.demo = demo
      if let snapshotEvery { $0.snapshotEvery = snapshotEvery }
    }
  }

  func call(_ node: TestServer, _ method: String, _ path: String, body: String? = nil) throws
    -> (status: Int, json: JSONValue?, headers: [String: String])
  {
    try APITests().call(node.port, method, path, body: body)
  }

  /// A connection of its own to the test's Redis.
  func connection() throws -> RedisConnection {
    try RedisConnection(url: RedisURL(host: "127.0.0.1", port: redis.port))
  }

  deinit {
    a.server.shutdown()
    b.server.shutdown()
    redis.stop()
    directory.remove()
  }
}

@Suite("The HTTP API in cluster mode: writes and the op log on every node", .serialized)
struct ClusterAPITests {
  static let ops = #"""
    {"ops":[{"id":"p1","op":{"kind":"move","item":"z","list":"l","after":"x"}},
            {"id":"p2","op":{"kind":"insert","list":"l","item":"n","after":"x","fields":{"title":"N"}}},
            {"id":"p3","op":{"kind":"move","item":"n","list":"l","after":"y"}},
            {"id":"p4","op":{"kind":"delete","item":"nope"}}]}
    """#

  /// The `applied` frames after seq `after` that `c` gets until one with `id` `last`, in order.
  static func applied(_ c: RoomClient, after: Double, through last: String) throws -> [JSONValue] {
    var frames: [JSONValue] = []
    while true {
      let frame = try c.next(type: "applied")
      guard (frame["seq"]?.numberValue ?? 0) > after else { continue }
      frames.append(frame)
      if frame["id"] == .string(last) { return frames }
    }
  }

  @Test(
    "POST ops on node A reach clients on A and B in one seq order; re-sent to B they get the same seqs, applied once")
  func opsThroughTheLog() throws {
    let pair = try ClusterAPIPair()
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let onA = try RoomClient.join(port: pair.a.port, client: "ca", context: context)
    try ClusterPair.seed(onA, items: ["x", "y", "z"])
    let onB = try RoomClient.join(port: pair.b.port, client: "cb", context: context)
    #expect(onB.welcome["seq"] == .number(4))

    let posted = try pair.call(pair.a, "POST", "/api/v1/boards/t/ops", body: Self.ops)
    #expect(posted.status == 200)
    guard case .array(let results)? = posted.json?["results"], results.count == 4 else {
      Issue.record("no results: \(String(describing: posted.json))")
      return
    }
    // In order, each made on the board with the ones before it applied (p3 moves what p2 inserted).
    #expect(
      results.map { $0["type"] } == [.string("applied"), .string("applied"), .string("applied"), .string("rejected")])
    #expect(results.map { $0["seq"] } == [.number(5), .number(6), .number(7), nil])
    #expect(results[3]["code"] == .string("unknown_item"))
    #expect(results[2]["op"]?["kind"] == .string("move"))
    #expect(results[2]["op"]?["after"] == .string("y"))

    for client in [onA, onB] {
      let frames = try Self.applied(client, after: 4, through: "p3")
      #expect(frames.map { $0["seq"] } == [.number(5), .number(6), .number(7)])
      #expect(frames.map { $0["by"] } == [.string("api"), .string("api"), .string("api")])
      #expect(frames.map { $0["op"] } == results.prefix(3).map { $0["op"] })
    }

    // The same request on the other node: the same results, nothing applied again.
    let again = try pair.call(pair.b, "POST", "/api/v1/boards/t/ops", body: Self.ops)
    #expect(again.status == 200)
    #expect(again.json?["results"] == posted.json?["results"])
    onB.op("after", Ops.move("x", list: "l", after: "z"))
    for client in [onA, onB] {
      let frames = try Self.applied(client, after: 7, through: "after")
      #expect(frames.map { $0["seq"] } == [.number(8)], "no op of the re-sent request was applied again")
    }
    let board = try pair.call(pair.b, "GET", "/api/v1/boards/t")
    #expect(boardItems(board.json?["board"], list: "l") == ["z", "x", "y", "n"])
    #expect(board.json?["board"] == (try pair.call(pair.a, "GET", "/api/v1/boards/t")).json?["board"])
  }

  @Test(
    "PUT on A creates the board (409 again without ?replace=true); replacing it gives clients on B a fresh welcome with the new epoch"
  )
  func replace() throws {
    let pair = try ClusterAPIPair()
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let created = try pair.call(pair.a, "PUT", "/api/v1/boards/plan", body: APIWriteTests.board)
    #expect(created.status == 201)
    #expect(created.json?["seq"] == .number(6))
    let first = created.json?["epoch"]
    #expect(try pair.call(pair.b, "PUT", "/api/v1/boards/plan", body: APIWriteTests.board).status == 409)
    let onB = try RoomClient.join(port: pair.b.port, room: "plan", client: "cb", context: context)
    let onA = try RoomClient.join(port: pair.a.port, room: "plan", client: "ca", context: context)
    for client in [onA, onB] {
      #expect(client.welcome["epoch"] == first)
      #expect(boardItems(client.welcome["board"], list: "todo") == ["a", "b"])
    }

    let replacement = #"{"lists":[{"id":"todo","title":"To do","layout":"list","items":[{"id":"c"}]}]}"#
    let replaced = try pair.call(pair.a, "PUT", "/api/v1/boards/plan?replace=true", body: replacement)
    #expect(replaced.status == 200)
    #expect(replaced.json?["seq"] == .number(2))
    let second = replaced.json?["epoch"]
    #expect(second != first)
    for client in [onA, onB] {
      let welcome = try client.next(type: "welcome")
      #expect(welcome["epoch"] == second)
      #expect(welcome["seq"] == .number(2))
      #expect(boardItems(welcome["board"], list: "todo") == ["c"])
      #expect(welcome["board"] == replaced.json?["board"])
    }
    // The open connections go on in the new history.
    onB.op("m1", Ops.insert("d", list: "todo", after: "c"))
    for client in [onA, onB] { #expect(try client.applied(id: "m1")["seq"] == .number(3)) }
    let read = try pair.call(pair.a, "GET", "/api/v1/boards/plan")
    #expect(read.json?["epoch"] == second)
    #expect(boardItems(read.json?["board"], list: "todo") == ["c", "d"])
  }

  @Test(
    "DELETE on B closes A's clients with 4404; the board is gone from Redis and 404 on both; a new join starts empty")
  func delete() throws {
    let pair = try ClusterAPIPair()
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    #expect(try pair.call(pair.a, "PUT", "/api/v1/boards/plan", body: APIWriteTests.board).status == 201)
    let onA = try RoomClient.join(port: pair.a.port, room: "plan", client: "ca", context: context)
    let epoch = onA.welcome["epoch"]
    #expect(try pair.call(pair.b, "DELETE", "/api/v1/boards/plan").status == 204)
    let closed = onA.waitForClose()
    #expect(closed?.code == 4404)
    #expect(closed?.reason == "board deleted")
    for node in [pair.a, pair.b] {
      #expect(try pair.call(node, "GET", "/api/v1/boards/plan").status == 404)
      #expect(try pair.call(node, "GET", "/api/v1/boards/plan/ops?since=0").status == 404)
    }
    #expect(try pair.call(pair.a, "DELETE", "/api/v1/boards/plan").status == 404)
    let redis = try pair.connection()
    let keys = ClusterKeys(room: "plan").all
    #expect(waitUntil(timeout: 5) { keys.allSatisfy { (try? redis.command("EXISTS", $0).integer) == 0 } })

    let fresh = try RoomClient.join(port: pair.a.port, room: "plan", client: "cn", context: context)
    #expect(fresh.welcome["seq"] == .number(0))
    #expect(fresh.welcome["epoch"] != epoch)
    #expect(boardItems(fresh.welcome["board"], list: "todo") == [])
    fresh.op("n1", Ops.createList("l"))
    #expect(try fresh.applied(id: "n1")["seq"] == .number(1))
  }

  /// `node`'s board list (`GET /api/v1/boards`, one page), expected to answer 200 with `boards`.
  private func listedBoards(_ pair: ClusterAPIPair, _ node: TestServer) throws -> [JSONValue]? {
    let list = try pair.call(node, "GET", "/api/v1/boards?limit=1000")
    #expect(list.status == 200)
    guard case .array(let boards)? = list.json?["boards"] else {
      Issue.record("no boards array")
      return nil
    }
    return boards
  }

  @Test("a board made by PUT is in the board list of every node at once, with its figures; DELETE takes it out")
  func listedAtOnce() throws {
    let pair = try ClusterAPIPair()
    #expect(try pair.call(pair.a, "PUT", "/api/v1/boards/plan", body: APIWriteTests.board).status == 201)
    for node in [pair.a, pair.b] {
      guard let boards = try listedBoards(pair, node) else { continue }
      let plan = boards.first { $0["room"] == .string("plan") }
      #expect(plan?["seq"] == .number(6))
      #expect(plan?["lists"] == .number(2))
      #expect(plan?["items"] == .number(3))
    }
    #expect(try pair.call(pair.b, "DELETE", "/api/v1/boards/plan").status == 204)
    for node in [pair.a, pair.b] {
      guard let boards = try listedBoards(pair, node) else { continue }
      #expect(!boards.contains { $0["room"] == .string("plan") })
    }
    let redis = try pair.connection()
    #expect(try redis.command("ZSCORE", ClusterKeys.directory, "plan").isNull)
  }

  @Test(
    "GET ops since= on a node that never loaded the room answers the same ops, seqs and resolved fields as the node that made them"
  )
  func opLog() throws {
    let pair = try ClusterAPIPair()
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let onA = try RoomClient.join(port: pair.a.port, client: "ca", context: context)
    try ClusterPair.seed(onA, items: ["x", "y", "z"])
    onA.op("m1", Ops.move("x", list: "l", after: "z"))
    onA.op("m2", Ops.delete("y"))
    _ = try onA.applied(id: "m2")
    let made = try pair.call(pair.a, "GET", "/api/v1/boards/t/ops?since=0")
    #expect(made.status == 200)
    guard case .array(let ops)? = made.json?["ops"] else {
      Issue.record("no ops: \(String(describing: made.json))")
      return
    }
    #expect(ops.map { $0["seq"] } == (1...6).map { .number(Double($0)) })
    #expect(ops[4]["op"]?["from"] != nil, "a resolved move")
    let remote = try pair.call(pair.b, "GET", "/api/v1/boards/t/ops?since=0")
    #expect(remote.status == 200)
    #expect(remote.json == made.json)
    let page = try pair.call(pair.b, "GET", "/api/v1/boards/t/ops?since=3&limit=2")
    #expect(page.json?["ops"] == .array(Array(ops[3..<5])))
    #expect(try pair.call(pair.b, "GET", "/api/v1/boards/t/ops?since=6").json?["ops"] == .array([]))
    #expect(try pair.call(pair.b, "GET", "/api/v1/boards/nothing/ops?since=0").status == 404)
  }

  @Test("GET ops since= older than a replica loaded from a snapshot keeps is 410 with the earliest seq it answers")
  func opLogGone() throws {
    let pair = try ClusterAPIPair(snapshotEvery: 5)
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let onA = try RoomClient.join(port: pair.a.port, client: "ca", context: context)
    try ClusterPair.seed(onA, items: ["x", "y", "z"])
    for i in 0..<4 {
      onA.op("m\(i)", Ops.move("x", list: "l", after: i % 2 == 0 ? "z" : "y"))
      _ = try onA.applied(id: "m\(i)")
    }
    // A snapshot at seq 5 is in Redis; B loads from it and keeps the frames after it.
    let redis = try pair.connection()
    #expect(waitUntil(timeout: 10) { (try? redis.snapshot(room: "t"))?.seq == 5 })
    let gone = try pair.call(pair.b, "GET", "/api/v1/boards/t/ops?since=0")
    #expect(gone.status == 410)
    #expect(gone.json?["detail"] == .string("the log no longer reaches back to seq 1; the earliest kept is 6"))
    let kept = try pair.call(pair.b, "GET", "/api/v1/boards/t/ops?since=5")
    #expect(kept.status == 200)
    #expect(kept.json == (try pair.call(pair.a, "GET", "/api/v1/boards/t/ops?since=5")).json)
  }

  @Test("--demo --redis serves the demo boards on both nodes, made once")
  func demo() throws {
    let pair = try ClusterAPIPair(demo: true)
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    for room in ["food", "home", "numbers", "cities"] {
      let onA = try pair.call(pair.a, "GET", "/api/v1/boards/\(room)")
      let onB = try pair.call(pair.b, "GET", "/api/v1/boards/\(room)")
      #expect(onA.status == 200, "\(room)")
      #expect(onA.json == onB.json, "\(room)")
      #expect((onA.json?["seq"]?.numberValue ?? 0) > 0, "\(room)")
    }
    let joined = try RoomClient.join(port: pair.b.port, room: "numbers", client: "cb", context: context)
    #expect(joined.welcome["board"] == (try pair.call(pair.a, "GET", "/api/v1/boards/numbers")).json?["board"])
    // An edited demo board is kept by a node that starts later with --demo.
    joined.op("e1", Ops.createList("extra"))
    let seq = try joined.applied(id: "e1")["seq"]
    let late = try ClusterAPIPair.node(pair.redis, pair.directory, demo: true, snapshotEvery: nil)
    #expect(try pair.call(late, "GET", "/api/v1/boards/numbers").json?["seq"] == seq)
  }
}
