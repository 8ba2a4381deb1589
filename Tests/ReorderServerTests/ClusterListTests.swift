import Foundation
import ReorderRooms
import ReorderTransport
import TestSupport
import Testing

@testable import ReorderServer

/// Two in-process nodes in cluster mode with the HTTP API on, sharing one real `redis-server`
/// (free port, temp dir, stopped by PID); `configure` adds to both nodes' settings.
final class ClusterAPINodes {
  let redis: RedisServer
  let directory: TemporaryDirectory
  let a: TestServer
  let b: TestServer

  init(configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
    redis = try RedisServer()
    directory = try TemporaryDirectory()
    try directory.write("keys", APITests.key + "\n")
    let url = "redis://127.0.0.1:\(redis.port)"
    let keys = directory.path + "/keys"
    a = try TestServer {
      $0.redis = url
      $0.apiKeyFile = keys
      configure(&$0)
    }
    b = try TestServer {
      $0.redis = url
      $0.apiKeyFile = keys
      configure(&$0)
    }
  }

  var ports: [Int] { [a.port, b.port] }

  /// `GET /api/v1/boards` with `query` on `port`: the status and the JSON body.
  func list(_ port: Int, _ query: String = "") throws -> (status: Int, json: JSONValue?) {
    let reply = try APITests().call(port, "GET", "/api/v1/boards" + query)
    return (reply.status, reply.json)
  }

  /// The listed board named `room` on `port`, if listed.
  func listed(_ port: Int, _ room: String) -> JSONValue? {
    guard let json = try? list(port, "?limit=1000").json, case .array(let boards)? = json["boards"] else { return nil }
    return boards.first { $0["room"] == .string(room) }
  }

  deinit {
    a.server.shutdown()
    b.server.shutdown()
    redis.stop()
    directory.remove()
  }
}

@Suite("Cluster mode: the board list over real sockets and a real Redis", .serialized)
struct ClusterListTests {
  @Test("ops on both nodes: either node lists the room with its seq, epoch, lists, items and everyone online")
  func listedOnEitherNode() throws {
    let nodes = try ClusterAPINodes()
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let onA = try RoomClient.join(port: nodes.a.port, room: "shared", client: "a", context: context)
    try ClusterPair.seed(onA, items: ["x", "y"])
    let onB = try RoomClient.join(port: nodes.b.port, room: "shared", client: "b", context: context)
    let alsoOnB = try RoomClient.join(port: nodes.b.port, room: "shared", client: "b2", context: context)
    onB.op("b:1", Ops.createList("m"))
    _ = try onB.applied(id: "b:1")
    // Node A validates the move against what it has applied: list m must be there first.
    _ = try onA.applied(id: "b:1")
    onB.op("b:2", Ops.insert("z", list: "m"))
    onA.op("a:1", Ops.move("x", list: "m"))
    _ = try onB.applied(id: "b:2")
    _ = try onA.applied(id: "a:1")
    // Seeds 1…3, then 3 more: 6 ops, 2 lists, 3 items, 3 members on two nodes.
    let epoch = onA.welcome["epoch"]
    for port in nodes.ports {
      var board: JSONValue?
      let current = waitUntil(timeout: 20, pollMilliseconds: 50) {
        board = nodes.listed(port, "shared")
        return board?["seq"] == .number(6) && board?["online"] == .number(3)
      }
      #expect(current, "port \(port): \(String(describing: board))")
      guard case .object(let fields)? = board else { continue }
      #expect(fields.map(\.key) == ["room", "seq", "epoch", "lists", "items", "online", "updated_at"])
      #expect(board?["epoch"] == epoch)
      #expect(board?["lists"] == .number(2))
      #expect(board?["items"] == .number(3))
      let updated = board?["updated_at"]?.stringValue ?? ""
      #expect(updated.hasSuffix("Z") && updated.count == "2026-12-01T18:04:05.123Z".count, "\(updated)")
    }
    // A member leaving is counted out on both nodes.
    alsoOnB.close()
    for port in nodes.ports {
      #expect(waitUntil(timeout: 20, pollMilliseconds: 50) { nodes.listed(port, "shared")?["online"] == .number(2) })
    }
    onA.close()
    onB.close()
  }

  @Test("limit and cursor page through rooms made on both nodes, the same pages on either node")
  func pagesAcrossNodes() throws {
    let nodes = try ClusterAPINodes()
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let rooms = ["r-c", "r-a", "r-d", "r-b"]
    var clients: [RoomClient] = []
    for (index, room) in rooms.enumerated() {
      let client = try RoomClient.join(
        port: nodes.ports[index % 2], room: room, client: "c\(index)", context: context)
      try ClusterPair.seed(client, items: Array(["i1", "i2", "i3"].prefix(index + 1)))
      clients.append(client)
    }
    // Seeds: a list, then 1, 2, 3, 3 items. Every room is listed with its last seq once its
    // holder has written the summary.
    let seqs: [String: Double] = ["r-c": 2, "r-a": 3, "r-d": 4, "r-b": 4]
    #expect(
      waitUntil(timeout: 20, pollMilliseconds: 50) {
        nodes.ports.allSatisfy { port in rooms.allSatisfy { nodes.listed(port, $0)?["seq"] == .number(seqs[$0]!) } }
      })
    for port in nodes.ports {
      var names: [String] = []
      var cursor: String?
      var pages = 0
      repeat {
        let query = "?limit=3" + (cursor.map { "&cursor=" + $0 } ?? "")
        let page = try nodes.list(port, query)
        #expect(page.status == 200)
        guard case .array(let boards)? = page.json?["boards"] else { break }
        #expect(boards.count <= 3)
        names += boards.compactMap { $0["room"]?.stringValue }
        cursor = page.json?["next"]?.stringValue
        if cursor == nil { #expect(page.json?["next"] == .null) }
        pages += 1
      } while cursor != nil && pages < 10
      #expect(names == rooms.sorted(), "port \(port)")
      #expect(pages == 2)
      let first = try nodes.list(port, "?limit=2").json
      guard case .array(let boards)? = first?["boards"] else { continue }
      #expect(boards.map { $0["room"] } == [.string("r-a"), .string("r-b")])
      #expect(boards.map { $0["seq"] } == [.number(3), .number(4)])
    }
    // The cursor is opaque and the limit bounded, as on one node.
    #expect(try nodes.list(nodes.a.port, "?cursor=not-a-cursor").status == 400)
    #expect(try nodes.list(nodes.b.port, "?limit=0").status == 400)
    for client in clients { client.close() }
  }

  @Test("with Redis unreachable the list answers 503 problem+json, and lists again once it is back")
  func redisDown() throws {
    let nodes = try ClusterAPINodes()
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let client = try RoomClient.join(port: nodes.a.port, room: "down", client: "d", context: context)
    try ClusterPair.seed(client, items: ["x"])
    #expect(waitUntil(timeout: 20, pollMilliseconds: 50) { nodes.listed(nodes.b.port, "down") != nil })
    nodes.redis.kill()
    let refused = try APITests().call(nodes.b.port, "GET", "/api/v1/boards")
    #expect(refused.status == 503)
    #expect(refused.headers["content-type"] == "application/problem+json")
    #expect(refused.json?["title"] == .string("storage unavailable"))
    // Restarted on its directory (appendfsync always): the summary is there again.
    try nodes.redis.start()
    #expect(waitUntil(timeout: 20, pollMilliseconds: 100) { nodes.listed(nodes.b.port, "down")?["seq"] == .number(2) })
    client.close()
  }
}
