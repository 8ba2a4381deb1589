import Foundation
import ReorderRedis
import ReorderRooms
import ReorderTransport
import TestSupport
import Testing

@testable import ReorderServer

/// `--redis-wait-replicas`: acknowledged only once replicas have it, and a failover to a replica
/// takes back nothing acknowledged or applied (real `redis-server`s with replicas).
@Suite("Cluster mode with --redis-wait-replicas over real Redis replicas", .serialized)
struct ReplicaWaitTests {
  /// Sends `op` as `id` until it is applied (a rejected op is sent again 100 ms later, as the web
  /// client does); its `applied` frame, or nil when `seconds` passed.
  static func commit(_ client: RoomClient, _ id: String, _ op: JSONValue, seconds: Double = 30) -> JSONValue? {
    let deadline = Date(timeIntervalSinceNow: seconds)
    while Date() < deadline {
      client.op(id, op)
      guard
        let frame = try? client.next(
          timeout: 10,
          where: { ($0["type"] == .string("applied") || $0["type"] == .string("rejected")) && $0["id"] == .string(id) })
      else { continue }
      if frame["type"] == .string("applied") { return frame }
      Thread.sleep(forTimeInterval: 0.1)
    }
    return nil
  }

  /// Whether `server` (a master) has `count` replicas online.
  static func replicasOnline(_ server: RedisServer, _ count: Int) -> Bool {
    guard let connection = try? RedisConnection(url: RedisURL(host: "127.0.0.1", port: server.port)) else {
      return false
    }
    defer { connection.close() }
    let info = (try? connection.command("INFO", "replication").text) ?? ""
    return info.contains("connected_slaves:\(count)") && (count == 0 || info.contains("state=online"))
  }

  @Test("one Redis and its replica: acknowledged once the replica has it; the replica down, refused; back, it lands")
  func replicaOfOneRedis() throws {
    let master = try RedisServer()
    defer { master.stop() }
    let replica = try RedisServer(extraArguments: ["--replicaof", "127.0.0.1", String(master.port)])
    defer { replica.stop() }
    #expect(waitUntil(timeout: 20) { Self.replicasOnline(master, 1) })
    let url = "redis://127.0.0.1:\(master.port)"
    let a = try TestServer {
      $0.redis = url
      $0.redisWaitReplicas = 1
    }
    let b = try TestServer {
      $0.redis = url
      $0.redisWaitReplicas = 1
    }
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let onA = try RoomClient.join(port: a.port, room: "w", client: "a", context: context)
    try ClusterPair.seed(onA, items: ["x", "y", "z"])
    let onB = try RoomClient.join(port: b.port, room: "w", client: "b", context: context)
    let first = try #require(Self.commit(onA, "m1", Ops.move("x", list: "l", after: "z")))
    #expect(first["seq"]?.numberValue == 5)
    // Acknowledged means on the replica too, and the other node applies it (the watermark).
    let onReplica = try RedisConnection(url: RedisURL(host: "127.0.0.1", port: replica.port))
    defer { onReplica.close() }
    #expect(try onReplica.entries(room: "w", after: 4).map(\.seq) == [5])
    var modelB = ClientModel(welcome: onB.welcome)
    _ = try onB.follow(&modelB, until: 5)

    replica.kill()
    onA.op("m2", Ops.move("y", list: "l"))
    let refused = try onA.next(timeout: 15) {
      ($0["type"] == .string("applied") || $0["type"] == .string("rejected")) && $0["id"] == .string("m2")
    }
    #expect(refused["type"] == .string("rejected"))
    #expect(refused["code"] == .string("unavailable"))

    try replica.start()
    #expect(waitUntil(timeout: 20) { Self.replicasOnline(master, 1) })
    let second = try #require(Self.commit(onA, "m2", Ops.move("y", list: "l")))
    #expect(second["seq"]?.numberValue == 6, "the refused op was in the log: sent again it keeps its seq")
    _ = try onB.follow(&modelB, until: 6)
    let fresh = try RoomClient.join(port: b.port, room: "w", client: "fresh", context: context)
    #expect(ClientModel(welcome: fresh.welcome).lists == modelB.lists)
    #expect(modelB.lists["l"] == ["z", "x", "y"])
  }

  @Test("a master killed under load fails over to its replica: no acknowledged op lost, both nodes agree")
  func clusterFailover() throws {
    let cluster = try RedisClusterServers(masters: 3, replicas: 1)
    defer { cluster.stop() }
    let seeds = cluster.servers.map { "redis://127.0.0.1:\($0.port)" }.joined(separator: ",")
    let nodes = try (0..<2).map { _ in
      try TestServer {
        $0.redisCluster = seeds
        $0.redisWaitReplicas = 1
      }
    }
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let rooms = (0..<6).map { "f\($0)" }
    var clients: [[RoomClient]] = []
    for room in rooms {
      let onA = try RoomClient.join(port: nodes[0].port, room: room, client: "a-\(room)", context: context)
      try ClusterPair.seed(onA, items: ["x", "y", "z"])
      let onB = try RoomClient.join(port: nodes[1].port, room: room, client: "b-\(room)", context: context)
      clients.append([onA, onB])
    }
    let victim = try #require(
      cluster.servers.prefix(3).first { server in
        let keys = (try? cluster.cli(server, ["--scan", "--pattern", "reorder:{f*}:meta"])) ?? ""
        return !keys.isEmpty
      }, "a master holding one of the rooms")

    // Moves round the rooms, from both nodes, each sent until applied. The victim dies after 10
    // rounds; its replica takes over its slots, and has no replica of its own (so its rooms' ops
    // are refused) until the victim comes back, 6 s later, as the new master's replica.
    var acked: [String: [String: UInt64]] = [:]
    let items = ["x", "y", "z"]
    let restarted = DispatchSemaphore(value: 0)
    for round in 0..<24 {
      if round == 10 {
        victim.kill()
        DispatchQueue.global().asyncAfter(deadline: .now() + 6) {
          try? victim.start()
          restarted.signal()
        }
      }
      for (index, room) in rooms.enumerated() {
        let client = clients[index][round % 2]
        let id = "\(client.session)-\(round)"
        let op = Ops.move(items[round % 3], list: "l", after: items[(round + 1) % 3])
        guard let frame = Self.commit(client, id, op, seconds: 60), let seq = frame["seq"]?.numberValue else {
          Issue.record("\(room): \(id) was never applied")
          continue
        }
        acked[room, default: [:]][id] = UInt64(seq)
      }
    }
    #expect(restarted.wait(timeout: .now() + 30) == .success)
    // Every acknowledged op is in its room's log at its seq, and both nodes hold the same boards.
    let client = RedisClusterClient(seeds: cluster.servers.map { RedisURL(host: "127.0.0.1", port: $0.port) })
    defer { client.close() }
    for room in rooms {
      let log = try client.command(key: ClusterKeys(room: room).log, ["XRANGE", ClusterKeys(room: room).log, "-", "+"])
      let entries = try ClusterReplies.entries(log, command: "XRANGE")
      #expect(entries.map(\.seq) == Array(1...UInt64(entries.count)), "\(room): a gap-free log")
      let bySeq = Dictionary(
        entries.map { ($0.seq, String(decoding: $0.key, as: UTF8.self)) }, uniquingKeysWith: { a, _ in a })
      for (id, seq) in acked[room] ?? [:] {
        #expect(
          bySeq[seq]?.hasSuffix(id) == true, "\(room): \(id) acknowledged at \(seq), the log has \(bySeq[seq] ?? "-")")
      }
      let last = entries.last?.seq ?? 0
      let welcomes = try nodes.map { node in
        var welcome = try RoomClient.join(port: node.port, room: room, client: "check", context: context).welcome
        var model = ClientModel(welcome: welcome)
        let deadline = Date(timeIntervalSinceNow: 20)
        while model.seq < last && Date() < deadline {
          Thread.sleep(forTimeInterval: 0.2)
          welcome = try RoomClient.join(port: node.port, room: room, client: "check", context: context).welcome
          model = ClientModel(welcome: welcome)
        }
        return model
      }
      #expect(welcomes.map(\.seq) == [last, last], "\(room)")
      #expect(welcomes[0].lists == welcomes[1].lists, "\(room)")
    }
  }
}
