import Foundation
import ReorderBasics
import ReorderRedis
import ReorderRooms
import ReorderTransport
import TestSupport
import Testing

@testable import ReorderServer

@Suite("Cluster mode: metrics, API, configuration, snapshots", .serialized)
struct ClusterOperationTests {
  @Test("/metrics shows the Redis round trips, reconnects and each followed room's lag; prometheus_client parses it")
  func redisMetrics() throws {
    let pair = try ClusterPair()
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let onA = try RoomClient.join(port: pair.a.port, client: "m", context: context)
    try ClusterPair.seed(onA, items: ["x"])
    var samples: [String] = []
    // The lag gauge appears once the node has read the room's log seq (every refresh).
    #expect(
      waitUntil(timeout: 15, pollMilliseconds: 100) {
        let text = (try? httpGet(port: pair.a.port, rawPath: "/metrics").text) ?? ""
        samples = (try? MetricsTests().parsed(text)) ?? []
        return samples.contains { $0.hasPrefix("reorder_redis_stream_lag_ops{room=t}") }
      })
    #expect(samples.contains("reorder_redis_stream_lag_ops{room=t} 0"))
    #expect(samples.contains("reorder_redis_reconnects_total{} 0"))
    let count = samples.first { $0.hasPrefix("reorder_redis_command_seconds_count{}") }
    #expect((count?.split(separator: " ").last.flatMap { Double($0) } ?? 0) >= 2, "the seed's appends at least")
    #expect(samples.contains { $0.hasPrefix("reorder_redis_command_seconds_bucket{le=+Inf}") })
    // The ops' wait for the log, as the store's commit on one node.
    #expect(samples.contains("reorder_op_commit_seconds_count{} 2"))
  }

  @Test("board reads and the board list work on every node in cluster mode")
  func apiReads() throws {
    let redis = try RedisServer()
    defer { redis.stop() }
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try directory.write("keys", APITests.key + "\n")
    let server = try TestServer {
      $0.redis = "redis://127.0.0.1:\(redis.port)"
      $0.apiKeyFile = directory.path + "/keys"
    }
    let api = APITests()
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let c = try RoomClient.join(port: server.port, room: "b", client: "r", context: context)
    try ClusterPair.seed(c, items: ["x"])
    let read = try api.call(server.port, "GET", "/api/v1/boards/b")
    #expect(read.status == 200)
    #expect(read.json?["seq"] == .number(2))
    // A node where the board is not loaded reads it from Redis.
    let other = try TestServer {
      $0.redis = "redis://127.0.0.1:\(redis.port)"
      $0.apiKeyFile = directory.path + "/keys"
    }
    let remote = try api.call(other.port, "GET", "/api/v1/boards/b")
    #expect(remote.status == 200)
    #expect(remote.json?["seq"] == .number(2))
    #expect(remote.json?["board"] == read.json?["board"])
    // The list works on every node (ClusterListTests).
    #expect(try api.call(other.port, "GET", "/api/v1/boards").status == 200)
  }

  @Test("--redis takes redis://HOST:PORT[/DB]; --redis-password-file needs it; --demo goes with it")
  func configuration() throws {
    var c = ServerConfiguration()
    c.redis = "redis://127.0.0.1:6390/2"
    #expect(throws: Never.self) { try c.validate() }
    c.redis = "redis://127.0.0.1"
    #expect(throws: ConfigurationError.self) { try c.validate() }
    c = ServerConfiguration()
    c.redisPasswordFile = "/nonexistent"
    #expect(throws: ConfigurationError.self) { try c.validate() }
    c = ServerConfiguration()
    c.redis = "redis://127.0.0.1:6390"
    c.demo = true
    #expect(throws: Never.self) { try c.validate() }
  }

  @Test("snapshots go to Redis by one lease holder, uncompacted, and a third node loads the room from them")
  func leasedSnapshots() throws {
    let redis = try RedisServer()
    defer { redis.stop() }
    let url = "redis://127.0.0.1:\(redis.port)"
    let a = try TestServer {
      $0.redis = url
      $0.snapshotEvery = 5
    }
    let b = try TestServer {
      $0.redis = url
      $0.snapshotEvery = 5
    }
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let onA = try RoomClient.join(port: a.port, client: "a", context: context)
    try ClusterPair.seed(onA, items: ["x", "y", "z"])
    let onB = try RoomClient.join(port: b.port, client: "b", context: context)
    onA.op("a:del", Ops.delete("y"))
    _ = try onA.applied(id: "a:del")
    for n in 0..<8 {
      let c = n % 2 == 0 ? onA : onB
      c.op("m\(n)", Ops.move(n % 2 == 0 ? "x" : "z", list: "l"))
      _ = try c.applied(id: "m\(n)")
    }
    let connection = try RedisConnection(url: RedisURL(parsing: url))
    defer { connection.close() }
    var snapshot: ClusterSnapshot?
    #expect(
      waitUntil(timeout: 10) {
        snapshot = try? connection.snapshot(room: "t")
        return (snapshot?.seq ?? 0) >= 5
      })
    let holder = try connection.leaseHolder(room: "t")
    #expect(holder != nil)
    // Uncompacted: the positions the moves left behind are still in it (compaction drops them).
    var board = try CRDTRoomBoard.factory.restore(snapshot?.bytes ?? [])
    #expect(board.compactedSnapshot().count < (snapshot?.bytes.count ?? 0))
    var model = ClientModel(welcome: onA.welcome)
    _ = try onA.follow(&model, until: 13)
    let c = try TestServer { $0.redis = url }
    let fresh = try RoomClient.join(port: c.port, client: "fresh", context: context)
    #expect(fresh.welcome["seq"] == .number(13))
    #expect(ClientModel(welcome: fresh.welcome).lists == model.lists)
  }

  @Test("--redis-password-file: a node with the password works; with a wrong one /healthz is 503 degraded")
  func passwordFile() throws {
    let redis = try RedisServer(password: "s3cret pass")
    defer { redis.stop() }
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try directory.write("good", "s3cret pass\n")
    try directory.write("bad", "wrong\n")
    let url = "redis://127.0.0.1:\(redis.port)/1"
    let good = try TestServer {
      $0.redis = url
      $0.redisPasswordFile = directory.path + "/good"
    }
    let bad = try TestServer {
      $0.redis = url
      $0.redisPasswordFile = directory.path + "/bad"
    }
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let c = try RoomClient.join(port: good.port, client: "p", context: context)
    try ClusterPair.seed(c, items: ["x"])
    #expect(try httpGet(port: good.port, rawPath: "/healthz").status == 200)
    #expect(waitUntil(timeout: 10) { (try? httpGet(port: bad.port, rawPath: "/healthz").status) == 503 })
  }
}
