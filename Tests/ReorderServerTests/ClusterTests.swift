import Foundation
import ReorderRooms
import ReorderServer
import ReorderTransport
import TestRandom
import TestSupport
import Testing

/// Two in-process nodes in cluster mode (`--redis`) sharing one real `redis-server` (free port,
/// temp dir, appendonly yes, appendfsync always; stopped by PID).
final class ClusterPair {
  let redis: RedisServer
  let a: TestServer
  let b: TestServer

  init() throws {
    redis = try RedisServer()
    let url = "redis://127.0.0.1:\(redis.port)"
    a = try TestServer { $0.redis = url }
    b = try TestServer { $0.redis = url }
  }

  /// Seeds list `l` with `items` through `c`, one op after the other: a node validates an intent
  /// against the ops it has applied, so an insert into a list still on its way through the log
  /// would be `unknown_list`.
  static func seed(_ c: RoomClient, items: [String]) throws {
    c.op("seed:0", Ops.createList("l"))
    _ = try c.applied(id: "seed:0")
    var previous: String?
    for (i, item) in items.enumerated() {
      c.op("seed:\(i + 1)", Ops.insert(item, list: "l", after: previous))
      _ = try c.applied(id: "seed:\(i + 1)")
      previous = item
    }
  }

  deinit {
    a.server.shutdown()
    b.server.shutdown()
    redis.stop()
  }
}

@Suite("Cluster mode over real sockets and a real Redis", .serialized)
struct ClusterTests {
  @Test("clients on two nodes get every applied in the same seq order and end with identical boards")
  func sameOrderAcrossNodes() throws {
    let pair = try ClusterPair()
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let ports = [pair.a.port, pair.b.port, pair.a.port, pair.b.port]
    let first = try RoomClient.join(port: ports[0], client: "c0", context: context)
    let items = (0..<8).map { "i\($0)" }
    try ClusterPair.seed(first, items: items)
    var clients = [first]
    for k in 1..<ports.count { clients.append(try RoomClient.join(port: ports[k], client: "c\(k)", context: context)) }
    var models = try clients.map { c -> ClientModel in
      var m = ClientModel(welcome: c.welcome)
      _ = try c.follow(&m, until: UInt64(items.count + 1))
      return m
    }
    var rng = SplitMix64(seed: 14)
    let rounds = 15
    for round in 0..<rounds {
      for (k, c) in clients.enumerated() {
        let item = items[rng.below(items.count)]
        let anchor = items[rng.below(items.count)]
        c.op("c\(k):\(round)", anchor == item ? Ops.move(item, list: "l") : Ops.move(item, list: "l", after: anchor))
      }
    }
    let total = UInt64(items.count + 1 + clients.count * rounds)
    var orders: [[UInt64]] = []
    for (k, c) in clients.enumerated() { orders.append(try c.follow(&models[k], until: total)) }
    for order in orders { #expect(order == orders[0]) }
    #expect(orders[0] == Array(UInt64(items.count + 2)...total))
    for port in [pair.a.port, pair.b.port] {
      let fresh = try RoomClient.join(port: port, client: "fresh\(port)", context: context)
      let truth = ClientModel(welcome: fresh.welcome)
      #expect(truth.seq == total)
      for m in models { #expect(m.lists == truth.lists) }
      #expect(Set(truth.lists["l"] ?? []) == Set(items))
    }
  }

  @Test("concurrent moves of one item from two nodes end in one place, the same on both")
  func concurrentMovesOneItem() throws {
    let pair = try ClusterPair()
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let onA = try RoomClient.join(port: pair.a.port, client: "a", context: context)
    try ClusterPair.seed(onA, items: ["x", "y", "z"])
    let onB = try RoomClient.join(port: pair.b.port, client: "b", context: context)
    var modelA = ClientModel(welcome: onA.welcome)
    var modelB = ClientModel(welcome: onB.welcome)
    _ = try onA.follow(&modelA, until: 4)
    _ = try onB.follow(&modelB, until: 4)
    onA.op("a:1", Ops.move("x", list: "l", after: "z"))
    onB.op("b:1", Ops.move("x", list: "l", after: "y"))
    _ = try onA.follow(&modelA, until: 6)
    _ = try onB.follow(&modelB, until: 6)
    #expect(modelA.lists == modelB.lists)
    #expect(modelA.lists["l"]?.filter { $0 == "x" }.count == 1)
    #expect(Set(modelA.lists["l"] ?? []) == ["x", "y", "z"])
  }

  @Test("a drag on node A is seen on node B, and a peer leaving A is seen leaving on B")
  func presenceAcrossNodes() throws {
    let pair = try ClusterPair()
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let onA = try RoomClient.join(port: pair.a.port, client: "a", name: "Ann", context: context)
    try ClusterPair.seed(onA, items: ["x", "y"])
    let onB = try RoomClient.join(port: pair.b.port, client: "b", name: "Bob", context: context)
    let session = onA.session
    // B subscribes to the room's channel once its room is loaded: a drag published before that
    // is not seen there, as presence is not stored; a dragging client keeps sending moves.
    onA.send(#"{"type":"drag","phase":"start","item":"x","list":"l"}"#)
    var drag: JSONValue = .null
    var t = 0
    let seen = waitUntil(timeout: 15, pollMilliseconds: 1) {
      t += 1
      onA.send(#"{"type":"drag","phase":"move","item":"x","list":"l","x":0.5,"y":0.5,"t":\#(t)}"#)
      guard
        let frame = try? onB.next(
          timeout: 0.1,
          where: { frame in
            guard frame["type"] == .string("drags"), case .array(let updates)? = frame["updates"] else { return false }
            return updates.contains { $0["session"] == .string(session) && $0["item"] == .string("x") }
          })
      else { return false }
      drag = frame
      return true
    }
    #expect(seen)
    #expect(drag["type"] == .string("drags"))
    onA.close()
    let left = try onB.next(timeout: 15) { frame in
      frame["type"] == .string("peer") && frame["event"] == .string("leave") && frame["session"] == .string(session)
    }
    #expect(left["name"] == .string("Ann"))
  }

  @Test("the same op id re-sent to the other node gets the same seq and is applied once")
  func resentAcrossNodes() throws {
    let pair = try ClusterPair()
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let onA = try RoomClient.join(port: pair.a.port, client: "w", context: context)
    try ClusterPair.seed(onA, items: ["x", "y", "z"])
    onA.op("w:move", Ops.move("x", list: "l", after: "z"))
    let first = try onA.applied(id: "w:move")
    onA.close()
    let onB = try RoomClient.join(port: pair.b.port, client: "w", context: context)
    onB.op("w:move", Ops.move("x", list: "l", after: "z"))
    let again = try onB.applied(id: "w:move")
    #expect(again["seq"] == first["seq"])
    onB.op("w:next", Ops.move("y", list: "l"))
    let next = try onB.applied(id: "w:next")
    #expect(next["seq"]?.numberValue == (first["seq"]?.numberValue ?? 0) + 1)
    // Node A applies seq `next` when its tail brings it: a client there follows until then.
    let watcher = try RoomClient.join(port: pair.a.port, client: "watch", context: context)
    var model = ClientModel(welcome: watcher.welcome)
    _ = try watcher.follow(&model, until: UInt64(next["seq"]?.numberValue ?? 0))
    #expect(model.seq == UInt64(next["seq"]?.numberValue ?? 0))
    #expect(model.lists["l"]?.filter { $0 == "x" }.count == 1)
  }

  @Test("Redis down: ops rejected unavailable and /healthz 503 degraded; back up: re-sent ops applied once")
  func redisOutage() throws {
    let pair = try ClusterPair()
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let onA = try RoomClient.join(port: pair.a.port, client: "o", context: context)
    try ClusterPair.seed(onA, items: ["x", "y", "z"])
    #expect(try httpGet(port: pair.a.port, rawPath: "/healthz").status == 200)
    pair.redis.kill()
    onA.op("o:down", Ops.move("x", list: "l", after: "z"))
    let rejected = try onA.next(timeout: 15) { $0["type"] == .string("rejected") && $0["id"] == .string("o:down") }
    #expect(rejected["code"] == .string("unavailable"))
    #expect(waitUntil(timeout: 15) { (try? httpGet(port: pair.a.port, rawPath: "/healthz").status) == 503 })
    // Node B has no room: its probe notices too.
    var degraded: HTTPReply?
    #expect(
      waitUntil(timeout: 15) {
        degraded = try? httpGet(port: pair.b.port, rawPath: "/healthz")
        return degraded?.status == 503
      })
    #expect(degraded?.text.contains(#""status":"degraded""#) == true)
    try pair.redis.start()
    #expect(waitUntil(timeout: 20) { (try? httpGet(port: pair.a.port, rawPath: "/healthz").status) == 200 })
    var applied: JSONValue = .null
    // The client re-sends until it is applied (a reconnecting link may refuse once more).
    #expect(
      waitUntil(timeout: 20, pollMilliseconds: 200) {
        onA.op("o:down", Ops.move("x", list: "l", after: "z"))
        guard
          let frame = try? onA.next(
            timeout: 5,
            where: {
              ($0["type"] == .string("applied") || $0["type"] == .string("rejected")) && $0["id"] == .string("o:down")
            })
        else { return false }
        applied = frame
        return frame["type"] == .string("applied")
      })
    #expect(applied["seq"]?.numberValue == 5)
    onA.op("o:down", Ops.move("x", list: "l", after: "z"))
    let once = try onA.next(timeout: 10) { $0["type"] == .string("applied") && $0["id"] == .string("o:down") }
    #expect(once["seq"]?.numberValue == 5)
    let fresh = try RoomClient.join(port: pair.b.port, client: "fresh", context: context)
    #expect(fresh.welcome["seq"]?.numberValue == 5)
    #expect(boardItems(fresh.welcome["board"], list: "l") == ["y", "z", "x"])
  }

  @Test("a cluster node opens no SQLite database: its data directory keeps only its id, /metrics shows no store")
  func noDatabaseInClusterMode() throws {
    let redis = try RedisServer()
    let data = try TemporaryDirectory()
    defer { data.remove() }
    let node = try TestServer(data: data.path) { $0.redis = "redis://127.0.0.1:\(redis.port)" }
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let c = try RoomClient.join(port: node.port, client: "c", context: context)
    try ClusterPair.seed(c, items: ["i0"])
    let files = try FileManager.default.contentsOfDirectory(atPath: data.path)
    #expect(!files.contains { $0.hasPrefix("reorder.sqlite3") }, "files: \(files)")
    #expect(files.contains("node-id"))
    let metrics = try node.get("/metrics").text
    #expect(!metrics.contains("reorder_store_bytes"))
    #expect(metrics.contains("reorder_ops_applied_total 2"))
    c.close()
  }
}
