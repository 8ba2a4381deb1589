import Foundation
import ReorderRedis
import ReorderRooms
import TestSupport
import Testing

@testable import ReorderCluster
@testable import ReorderServer
@testable import ReorderWebhooks

/// The API in cluster mode beyond its routes: the webhooks of its create and delete points, and
/// the Redis loads its whole-board writes must not break.
@Suite("The HTTP API in cluster mode: webhooks and loads", .serialized)
struct ClusterAPIEdgeTests {
  @Test("A Redis load of a room whose op 1 was trimmed knows the room's epoch")
  func loadKnowsEpochWithoutOpOne() throws {
    let redis = try RedisServer()
    defer { redis.stop() }
    let url = RedisURL(host: "127.0.0.1", port: redis.port)
    let c = try RedisConnection(url: url)
    try c.loadFunctions()
    for i in 1...5 {
      var record = OpRecord(id: "o\(i)", client: "c", by: "s", resolved: .null, logged: [])
      if i == 1 { record.epoch = "e1" }
      _ = try c.append(room: "r", epoch: "e1", key: Array("c\u{1F}o\(i)".utf8), node: "n", payload: record.encoded())
    }
    let board = CRDTRoomBoard.factory.empty()
    #expect(try c.putSnapshot(room: "r", seq: 5, bytes: board.snapshot()))
    #expect(try c.trim(room: "r", keepFrom: 3).removed == 2)
    let storage = RedisRoomStorage(
      link: RedisLink(url: url, prepare: { (redis) throws(RedisError) in try redis.loadFunctions() }), node: "n",
      retainedOps: 10, health: ClusterHealth())
    let loaded = Answer<Result<RoomHistory, RoomStoreError>>()
    storage.load(room: "r", remembering: 10) { loaded.set($0) }
    let history = try #require(try loaded.wait(timeoutSeconds: 10)?.get())
    #expect(history.remembered.map(\.seq) == [3, 4, 5])
    #expect(try history.first.map { try OpRecord(payload: $0.payload).epoch } == "e1")
  }

  @Test("board.created and board.deleted go out once, from the node that made the change")
  func webhooks() throws {
    let receiver = try WebhookReceiver(secret: WebhookTests.secret)
    defer { receiver.stop() }
    let redis = try RedisServer()
    defer { redis.stop() }
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try directory.write("keys", APITests.key + "\n")
    try directory.write("webhook-secret", WebhookTests.secret + "\n")
    let nodes = try (0..<2).map { _ in
      try TestServer { configuration in
        configuration.redis = "redis://127.0.0.1:\(redis.port)"
        configuration.apiKeyFile = directory.path + "/keys"
        configuration.webhookURL = receiver.url
        configuration.webhookSecretFile = directory.path + "/webhook-secret"
        configuration.webhookTiming = WebhookTiming(
          debounceSeconds: 0.05, maxWaitSeconds: 1, retryDelays: [0.1, 0.1, 0.1, 0.1], attemptTimeoutSeconds: 5)
      }
    }
    // board.changed is not this test's (another change sends it in cluster mode).
    func lifecycle() -> [[String: Any]] {
      receiver.deliveries.compactMap(\.body).filter {
        ["board.created", "board.deleted"].contains($0["type"] as? String ?? "")
      }
    }
    let created = try APITests().call(nodes[0].port, "PUT", "/api/v1/boards/hooked", body: APIWriteTests.board)
    #expect(created.status == 201)
    // Each event comes from the node that served the call, and two nodes' events are not ordered
    // (docs/WEBHOOKS.md): the delete waits for the create's delivery.
    try #require(waitUntil(timeout: 30) { lifecycle().count >= 1 })
    #expect(try APITests().call(nodes[1].port, "DELETE", "/api/v1/boards/hooked").status == 204)
    try #require(waitUntil(timeout: 30) { lifecycle().count >= 2 })
    let bodies = lifecycle()
    #expect(bodies.compactMap { $0["type"] as? String } == ["board.created", "board.deleted"])
    #expect(bodies.first?["epoch"] as? String == created.json?["epoch"]?.stringValue)
    #expect(bodies.allSatisfy { $0["room"] as? String == "hooked" })
    #expect(receiver.deliveries.allSatisfy { $0.signatureOK })
    for node in nodes { node.server.shutdown() }
  }
}
