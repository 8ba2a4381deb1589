import Foundation
import ReorderBasics
import ReorderRedis
import ReorderRooms
import ReorderTransport
import TestSupport
import Testing

@testable import ReorderCluster
@testable import ReorderServer
@testable import ReorderWebhooks

/// In-process nodes (two unless asked) over a real 3-master Redis Cluster (`redis-cli --cluster
/// create`), with the HTTP API on; `configure` adds to every node's settings.
final class RedisClusterNodes {
  let cluster: RedisClusterServers
  let directory: TemporaryDirectory
  let nodes: [TestServer]
  var a: TestServer { nodes[0] }
  var b: TestServer { nodes[1] }

  init(count: Int = 2, configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
    cluster = try RedisClusterServers(masters: 3)
    directory = try TemporaryDirectory()
    try directory.write("keys", APITests.key + "\n")
    // One seed is enough: the nodes learn the others from the slot map.
    let seeds = "redis://127.0.0.1:\(cluster.servers[1].port)"
    let keys = directory.path + "/keys"
    nodes = try (0..<count).map { _ in
      try TestServer {
        $0.redisCluster = seeds
        $0.apiKeyFile = keys
        configure(&$0)
      }
    }
  }

  /// The rooms whose keys each master holds (from its `meta` keys).
  func roomsByMaster() throws -> [Int: Set<String>] {
    var rooms: [Int: Set<String>] = [:]
    for server in cluster.servers {
      let keys = try cluster.cli(server, ["--scan", "--pattern", "reorder:{*}:meta"]).split(separator: "\n")
      rooms[server.port] = Set(keys.map { String($0.dropFirst("reorder:{".count).dropLast("}:meta".count)) })
    }
    return rooms
  }

  /// Every shard channel subscribed on any master.
  func shardChannels() throws -> Set<String> {
    var channels: Set<String> = []
    for server in cluster.servers {
      channels.formUnion(try cluster.cli(server, ["PUBSUB", "SHARDCHANNELS"]).split(separator: "\n").map(String.init))
    }
    return channels
  }

  deinit {
    for node in nodes { node.server.shutdown() }
    cluster.stop()
    directory.remove()
  }
}

@Suite("Cluster mode over a real Redis Cluster (--redis-cluster)", .serialized)
struct RedisClusterModeTests {
  @Test("12 rooms over the masters: every room's applied order is the same on both nodes; channels are sharded")
  func roomsAcrossMasters() throws {
    let nodes = try RedisClusterNodes()
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let rooms = (0..<12).map { "room\($0)" }
    let items = ["x", "y", "z"]
    var pairs: [(onA: RoomClient, onB: RoomClient)] = []
    for room in rooms {
      let onA = try RoomClient.join(port: nodes.a.port, room: room, client: "a-\(room)", context: context)
      try ClusterPair.seed(onA, items: items)
      let onB = try RoomClient.join(port: nodes.b.port, room: room, client: "b-\(room)", context: context)
      pairs.append((onA, onB))
    }
    let byMaster = try nodes.roomsByMaster()
    #expect(byMaster.values.filter { !$0.isEmpty }.count >= 2, "rooms on at least 2 masters: \(byMaster)")
    #expect(byMaster.values.reduce(0) { $0 + $1.count } == rooms.count, "each room on one master")
    for (index, pair) in pairs.enumerated() {
      for round in 0..<4 {
        pair.onA.op("a:\(round)", Ops.move(items[round % 3], list: "l", after: items[(round + 1) % 3]))
        pair.onB.op("b:\(round)", Ops.move(items[(round + 2) % 3], list: "l"))
      }
      let total = UInt64(items.count + 1 + 8)
      var modelA = ClientModel(welcome: pair.onA.welcome)
      var modelB = ClientModel(welcome: pair.onB.welcome)
      let orderA = try pair.onA.follow(&modelA, until: total)
      let orderB = try pair.onB.follow(&modelB, until: total)
      // A's client saw the seed too; from B's welcome on, both saw the same seqs in the same order.
      #expect(orderA.filter { $0 > UInt64(items.count + 1) } == orderB, "room \(rooms[index])")
      #expect(modelA.lists == modelB.lists)
      #expect(Set(modelA.lists["l"] ?? []) == Set(items))
    }
    // Presence and appends channels are shard channels in their rooms' slots, on their masters.
    let channels = try nodes.shardChannels()
    for room in rooms {
      #expect(channels.contains("reorder:{\(room)}:presence"))
      #expect(channels.contains("reorder:{\(room)}:appends"))
    }
    // Either node lists every board (the directory is a key of its own slot).
    var listed: Set<String> = []
    #expect(
      waitUntil(timeout: 30, pollMilliseconds: 200) {
        let reply = try? APITests().call(nodes.b.port, "GET", "/api/v1/boards?limit=100")
        guard case .array(let boards)? = reply?.json?["boards"] else { return false }
        listed = Set(boards.compactMap { $0["room"]?.stringValue })
        return listed.isSuperset(of: rooms)
      }, "listed: \(listed.sorted())")
    #expect((try? httpGet(port: nodes.a.port, rawPath: "/healthz").status) == 200)
  }

  @Test("a drag on node A is seen on node B through the room's shard channel")
  func dragsCrossNodes() throws {
    let nodes = try RedisClusterNodes()
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let onA = try RoomClient.join(port: nodes.a.port, room: "drag", client: "a", context: context)
    try ClusterPair.seed(onA, items: ["x", "y"])
    let onB = try RoomClient.join(port: nodes.b.port, room: "drag", client: "b", context: context)
    onA.send(#"{"type":"drag","phase":"start","item":"x","list":"l"}"#)
    var t = 0
    let seen = waitUntil(timeout: 15, pollMilliseconds: 1) {
      t += 1
      onA.send(#"{"type":"drag","phase":"move","item":"x","list":"l","x":0.5,"y":0.5,"t":\#(t)}"#)
      let frame = try? onB.next(timeout: 0.1) { frame in
        guard frame["type"] == .string("drags"), case .array(let updates)? = frame["updates"] else { return false }
        return updates.contains { $0["session"] == .string(onA.session) && $0["item"] == .string("x") }
      }
      return frame != nil
    }
    #expect(seen)
  }

  @Test(
    "a master SIGKILLed and restarted on its AOF: other masters' rooms are served, /healthz names it, no acked op lost"
  )
  func masterRestart() throws {
    let nodes = try RedisClusterNodes()
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let rooms = (0..<12).map { "room\($0)" }
    var clients: [String: RoomClient] = [:]
    for room in rooms {
      let client = try RoomClient.join(port: nodes.a.port, room: room, client: "c-\(room)", context: context)
      try ClusterPair.seed(client, items: ["x", "y"])
      clients[room] = client
    }
    // The victim holds rooms but not the board list's directory (a key of its own slot), so that the
    // list is still answered while it is down.
    var directoryHolder: Int?
    #expect(
      waitUntil(timeout: 30, pollMilliseconds: 200) {
        directoryHolder =
          nodes.cluster.servers.first { server in
            (try? nodes.cluster.cli(server, ["--scan", "--pattern", ClusterKeys.directory]))?.isEmpty == false
          }?.port
        return directoryHolder != nil
      })
    let victim = try #require(nodes.cluster.servers.first { $0.port != directoryHolder })
    let byMaster = try nodes.roomsByMaster()
    let onVictim = try #require(byMaster[victim.port]?.sorted().first, "a room on the victim: \(byMaster)")
    let elsewhere = try #require(
      rooms.first { !(byMaster[victim.port]?.contains($0) ?? false) }, "a room on another master: \(byMaster)")
    // Acknowledged before the kill: a move in the victim's room.
    clients[onVictim]!.op("before", Ops.move("x", list: "l", after: "y"))
    let before = try clients[onVictim]!.applied(id: "before")
    // A member on the other node, in a room of a live master: it must keep getting that room's ops.
    // It also follows the victim's room (a member there too), as a node with many rooms does.
    let watcher = try RoomClient.join(port: nodes.b.port, room: elsewhere, client: "watch", context: context)
    let alsoOnVictim = try RoomClient.join(port: nodes.b.port, room: onVictim, client: "watch", context: context)
    defer { alsoOnVictim.close() }
    var watched = ClientModel(welcome: watcher.welcome)
    // Every room is in the board list before the kill.
    func listed() -> (status: Int, boards: Set<String>, unavailable: Set<String>)? {
      guard let reply = try? APITests().call(nodes.a.port, "GET", "/api/v1/boards?limit=100") else { return nil }
      var boards: [JSONValue] = []
      var unavailable: [JSONValue] = []
      if case .array(let items)? = reply.json?["boards"] { boards = items }
      if case .array(let items)? = reply.json?["unavailable"] { unavailable = items }
      return (
        reply.status, Set(boards.compactMap { $0["room"]?.stringValue }), Set(unavailable.compactMap { $0.stringValue })
      )
    }
    #expect(waitUntil(timeout: 30, pollMilliseconds: 200) { listed()?.boards == Set(rooms) })
    victim.kill()

    // The other masters' rooms are served; the victim's ops are refused `unavailable`.
    var served: JSONValue?
    for attempt in 0..<50 where served == nil {
      clients[elsewhere]!.op("down:\(attempt)", Ops.move("x", list: "l", after: "y"))
      let answer = try clients[elsewhere]!.next(timeout: 10) {
        ($0["type"] == .string("applied") || $0["type"] == .string("rejected"))
          && $0["id"] == .string("down:\(attempt)")
      }
      if answer["type"] == .string("applied") { served = answer } else { Thread.sleep(forTimeInterval: 0.1) }
    }
    let servedSeq = try #require(served?["seq"]?.numberValue, "a room on a live master is served while another is down")
    // Node B's tail goes on for the live master's rooms while the victim is down.
    #expect(try watcher.follow(&watched, until: UInt64(servedSeq), timeout: 10).last == UInt64(servedSeq))
    clients[onVictim]!.op("during", Ops.move("y", list: "l", after: "x"))
    let refused = try clients[onVictim]!.next(timeout: 15) {
      ($0["type"] == .string("applied") || $0["type"] == .string("rejected")) && $0["id"] == .string("during")
    }
    #expect(refused["code"] == .string("unavailable"))
    var health: HTTPReply?
    #expect(
      waitUntil(timeout: 15) {
        health = try? httpGet(port: nodes.a.port, rawPath: "/healthz")
        return health?.text.contains(#""redis":"partial""#) == true
      }, "healthz: \(health?.text ?? "-")")
    #expect(health?.status == 200, "the node still serves the other masters' rooms")
    #expect(health?.text.contains(#""status":"degraded""#) == true)
    #expect(health?.text.contains("\"127.0.0.1:\(victim.port)\"") == true)
    // The board list names the boards it could not read; the rest are listed as ever.
    let list = try #require(listed())
    #expect(list.status == 200)
    #expect(list.unavailable == byMaster[victim.port], "unavailable: \(list.unavailable.sorted())")
    #expect(list.boards == Set(rooms).subtracting(byMaster[victim.port] ?? []))

    try victim.start()
    #expect(
      waitUntil(timeout: 30, pollMilliseconds: 200) {
        (try? httpGet(port: nodes.a.port, rawPath: "/healthz"))?.text.contains(#""status":"ok""#) == true
      })
    var applied: JSONValue = .null
    #expect(
      waitUntil(timeout: 30, pollMilliseconds: 200) {
        clients[onVictim]!.op("during", Ops.move("y", list: "l", after: "x"))
        guard
          let frame = try? clients[onVictim]!.next(
            timeout: 5,
            where: {
              ($0["type"] == .string("applied") || $0["type"] == .string("rejected")) && $0["id"] == .string("during")
            })
        else { return false }
        applied = frame
        return frame["type"] == .string("applied")
      })
    let seq = try #require(applied["seq"]?.numberValue)
    #expect(seq == (before["seq"]?.numberValue ?? 0) + 1, "the seq goes on after the acked op: nothing lost")
    // Node B catches up once it reaches the restarted master again (its reconnect backoff, then
    // a read of the log): a fresh welcome there holds the op within seconds.
    var welcomed: UInt64 = 0
    #expect(
      waitUntil(timeout: 20, pollMilliseconds: 250) {
        guard let fresh = try? RoomClient.join(port: nodes.b.port, room: onVictim, client: "fresh", context: context)
        else { return false }
        defer { fresh.close() }
        welcomed = ClientModel(welcome: fresh.welcome).seq
        return welcomed == UInt64(seq)
      }, "node B's welcome is at \(welcomed), the log at \(seq)")
  }

  @Test("three nodes: ops POSTed to one node reach the members on the others; one signed board.changed per burst")
  func apiAndWebhooks() throws {
    let receiver = try WebhookReceiver(secret: WebhookTests.secret)
    defer { receiver.stop() }
    let secrets = try TemporaryDirectory()
    defer { secrets.remove() }
    try secrets.write("webhook-secret", WebhookTests.secret + "\n")
    let timing = WebhookTiming(debounceSeconds: 2, maxWaitSeconds: 10, retryDelays: [0.2], attemptTimeoutSeconds: 5)
    let nodes = try RedisClusterNodes(count: 3) {
      $0.webhookURL = receiver.url
      $0.webhookSecretFile = secrets.path + "/webhook-secret"
      $0.webhookTiming = timing
    }
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let onA = try RoomClient.join(port: nodes.a.port, room: "api", client: "a", context: context)
    try ClusterPair.seed(onA, items: ["x", "y"])
    let onB = try RoomClient.join(port: nodes.b.port, room: "api", client: "b", context: context)
    let body = #"{"ops":[{"id":"api-1","op":{"kind":"move","item":"x","list":"l","after":"y"}}]}"#
    let posted = try APITests().call(nodes.nodes[2].port, "POST", "/api/v1/boards/api/ops", body: body)
    #expect(posted.status == 200, "\(String(describing: posted.json))")
    guard case .array(let results)? = posted.json?["results"] else {
      Issue.record("no results: \(String(describing: posted.json))")
      return
    }
    #expect(results.first?["type"] == .string("applied"))
    var modelA = ClientModel(welcome: onA.welcome)
    var modelB = ClientModel(welcome: onB.welcome)
    _ = try onA.follow(&modelA, until: 4)
    _ = try onB.follow(&modelB, until: 4)
    #expect(modelA.lists["l"] == ["y", "x"])
    #expect(modelB.lists == modelA.lists)
    let read = try APITests().call(nodes.b.port, "GET", "/api/v1/boards/api")
    #expect(read.status == 200)
    #expect(read.json?["seq"]?.numberValue == 4)
    try #require(waitUntil(timeout: 20, pollMilliseconds: 20) { receiver.deliveries.count >= 1 })
    Thread.sleep(forTimeInterval: timing.debounceSeconds + 2 * ClusterSummaries.writeInterval)
    let deliveries = receiver.deliveries
    #expect(deliveries.count == 1, "\(deliveries.map(\.body))")
    #expect(deliveries.allSatisfy { $0.signatureOK && $0.status == 204 })
    #expect(deliveries.first?.body["to_seq"] as? Int == 4)
    let counts = nodes.nodes.map { $0.server.statistics()?.webhooks.delivered ?? -1 }
    #expect(counts.sorted() == [0, 0, 1], "one node sent it: \(counts)")
  }

  @Test("backup --redis-cluster copies every master's rooms; restore --redis-cluster loads them into another cluster")
  func backupAndRestore() throws {
    let source = try RedisClusterNodes()
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let rooms = (0..<6).map { "kept\($0)" }
    for room in rooms {
      let client = try RoomClient.join(port: source.a.port, room: room, client: "c", context: context)
      try ClusterPair.seed(client, items: ["x", "y", "z"])
      client.op("c:move", Ops.move("x", list: "l", after: "z"))
      _ = try client.applied(id: "c:move")
      client.close()
    }
    #expect(try source.roomsByMaster().values.filter { !$0.isEmpty }.count >= 2)
    let backups = ClusterBackupTests()
    var truth: [String: (JSONValue?, JSONValue?, JSONValue?)] = [:]
    for room in rooms { truth[room] = try backups.welcomed(port: source.b.port, room: room, context: context) }
    let file = source.directory.path + "/cluster.sqlite3"
    let seeds = "redis://127.0.0.1:\(source.cluster.servers[0].port)"
    let backup = try backups.reorder(["backup", "--redis-cluster", seeds, "--out", file])
    #expect(backup.status == 0, "\(backup.output)")
    #expect(backup.output.contains { $0.contains("backed up 6 rooms, 30 ops") }, "\(backup.output)")

    let target = try RedisClusterNodes(count: 1)
    let targetSeeds = "redis://127.0.0.1:\(target.cluster.servers[2].port)"
    let restore = try backups.reorder(["restore", "--redis-cluster", targetSeeds, "--from", file])
    #expect(restore.status == 0, "\(restore.output)")
    #expect(restore.output.contains { $0.contains("restored 6 rooms, 30 ops") }, "\(restore.output)")
    for room in rooms {
      let got = try backups.welcomed(port: target.a.port, room: room, context: context)
      #expect(got.0 == truth[room]?.0, "\(room): seq")
      #expect(got.1 == truth[room]?.1, "\(room): epoch")
      #expect(got.2 == truth[room]?.2, "\(room): board")
    }
  }

  @Test("--redis-cluster excludes --redis, takes no /DB; --redis-user needs the password file")
  func configuration() throws {
    var c = ServerConfiguration()
    c.redisCluster = "redis://127.0.0.1:7001, redis://127.0.0.1:7002"
    #expect(throws: Never.self) { try c.validate() }
    c.redis = "redis://127.0.0.1:6390"
    #expect(
      throws: ConfigurationError("--redis and --redis-cluster exclude each other: give one Redis or one Redis Cluster")
    ) {
      try c.validate()
    }
    c = ServerConfiguration()
    c.redisCluster = "redis://127.0.0.1:7001/2"
    #expect(throws: ConfigurationError.self) { try c.validate() }
    c = ServerConfiguration()
    c.redisCluster = "redis://127.0.0.1:7001"
    c.redisUser = "reorder"
    #expect(throws: ConfigurationError("--redis-user needs --redis-password-file (AUTH user password)")) {
      try c.validate()
    }
  }
}
