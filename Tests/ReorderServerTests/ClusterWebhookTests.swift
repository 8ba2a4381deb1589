import Foundation
import ReorderRedis
import ReorderRooms
import ReorderTransport
import TestSupport
import Testing

@testable import ReorderServer

/// `board.changed` in cluster mode: two nodes send their webhooks to one Python receiver that
/// checks every signature; only the lease holder of a room sends its events.
@Suite("Cluster mode: webhooks over real sockets and a real Redis", .serialized)
struct ClusterWebhookTests {
  /// Two nodes with webhooks to `receiver` (`timing` on both).
  func nodes(_ receiver: WebhookReceiver, _ timing: WebhookTiming) throws -> ClusterAPINodes {
    let secrets = try TemporaryDirectory()
    try secrets.write("webhook-secret", WebhookTests.secret + "\n")
    defer { secrets.remove() }
    return try ClusterAPINodes {
      $0.webhookURL = receiver.url
      $0.webhookSecretFile = secrets.path + "/webhook-secret"
      $0.webhookTiming = timing
    }
  }

  @Test("each burst of ops made on both nodes is exactly one signed board.changed, sent by one node")
  func oneEventPerBurst() throws {
    let receiver = try WebhookReceiver(secret: WebhookTests.secret)
    defer { receiver.stop() }
    let timing = WebhookTiming(debounceSeconds: 1, maxWaitSeconds: 10, retryDelays: [0.2], attemptTimeoutSeconds: 5)
    let nodes = try nodes(receiver, timing)
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let onA = try RoomClient.join(port: nodes.a.port, room: "hooked", client: "a", context: context)
    try ClusterPair.seed(onA, items: ["x", "y"])
    let onB = try RoomClient.join(port: nodes.b.port, room: "hooked", client: "b", context: context)
    // Burst 1: the seed (1…3) and 6 moves, 3 made on each node, all within the debounce.
    func burst(_ round: Int) throws {
      for n in 0..<3 {
        onA.op("a:\(round):\(n)", Ops.move("x", list: "l", after: n % 2 == 0 ? "y" : nil))
        onB.op("b:\(round):\(n)", Ops.move("y", list: "l", after: n % 2 == 0 ? nil : "x"))
      }
      for n in 0..<3 {
        _ = try onA.applied(id: "a:\(round):\(n)")
        _ = try onB.applied(id: "b:\(round):\(n)")
      }
    }
    try burst(1)
    try #require(waitUntil(timeout: 20, pollMilliseconds: 20) { receiver.deliveries.count >= 1 })
    // Burst 2, after the first event went out: 6 more.
    try burst(2)
    try #require(waitUntil(timeout: 20, pollMilliseconds: 20) { receiver.deliveries.count >= 2 })
    // Nothing else comes: another debounce (and a summary write) later there are still two.
    Thread.sleep(forTimeInterval: timing.debounceSeconds + 2 * ClusterSummaries.writeInterval)
    let deliveries = receiver.deliveries
    #expect(deliveries.count == 2, "\(deliveries.map(\.body))")
    #expect(deliveries.allSatisfy { $0.signatureOK && $0.status == 204 })
    let ranges = deliveries.map { ($0.body["from_seq"] as? Int ?? 0, $0.body["to_seq"] as? Int ?? 0) }
    #expect(ranges.first.map { $0 == (1, 9) } == true, "\(ranges)")
    #expect(ranges.last.map { $0 == (10, 15) } == true, "\(ranges)")
    for delivery in deliveries {
      #expect(delivery.body["type"] as? String == "board.changed")
      #expect(delivery.body["room"] as? String == "hooked")
      #expect(delivery.body["epoch"] as? String == onA.welcome["epoch"]?.stringValue)
    }
    // One node sent them (the lease holder), and only it has webhook deliveries.
    let counts = [nodes.a, nodes.b].map { $0.server.statistics()?.webhooks.delivered ?? -1 }
    #expect(counts.sorted() == [0, 2], "\(counts)")
    onA.close()
    onB.close()
  }

  @Test("the holder stopping hands board.changed to the other node, from where the holder's summary ended")
  func holderStops() throws {
    let receiver = try WebhookReceiver(secret: WebhookTests.secret)
    defer { receiver.stop() }
    let timing = WebhookTiming(debounceSeconds: 0.5, maxWaitSeconds: 10, retryDelays: [0.2], attemptTimeoutSeconds: 5)
    let nodes = try nodes(receiver, timing)
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let onA = try RoomClient.join(port: nodes.a.port, room: "handover", client: "a", context: context)
    try ClusterPair.seed(onA, items: ["x", "y"])
    let onB = try RoomClient.join(port: nodes.b.port, room: "handover", client: "b", context: context)
    try #require(waitUntil(timeout: 20, pollMilliseconds: 20) { receiver.deliveries.count >= 1 })
    let first = receiver.deliveries[0]
    #expect(first.body["from_seq"] as? Int == 1 && first.body["to_seq"] as? Int == 3)
    // Which node holds the lease: the one that delivered.
    let aSent = (nodes.a.server.statistics()?.webhooks.delivered ?? 0) == 1
    let (holder, other, client) = aSent ? (nodes.a, nodes.b, onB) : (nodes.b, nodes.a, onA)
    (aSent ? onA : onB).close()
    holder.server.shutdown()
    for n in 0..<4 { client.op("o:\(n)", Ops.move(n % 2 == 0 ? "x" : "y", list: "l")) }
    for n in 0..<4 { _ = try client.applied(id: "o:\(n)") }
    // The stopped holder released its lease, or its final snapshot took it again for its 30 s:
    // either way the other node reports the ops after the holder's last summary.
    let waited = waitUntil(timeout: 45, pollMilliseconds: 50) { receiver.deliveries.count >= 2 }
    try #require(waited)
    let second = receiver.deliveries[1]
    #expect(second.signatureOK)
    #expect(second.body["from_seq"] as? Int == 4 && second.body["to_seq"] as? Int == 7, "\(second.body)")
    #expect(other.server.statistics()?.webhooks.delivered == 1)
    client.close()
  }

  @Test("a SIGKILLed holder's ops after its last summary are reported by the other node once its lease lapses")
  func holderKilled() throws {
    let receiver = try WebhookReceiver(secret: WebhookTests.secret)
    defer { receiver.stop() }
    let redis = try RedisServer()
    defer { redis.stop() }
    let secrets = try TemporaryDirectory()
    defer { secrets.remove() }
    try secrets.write("webhook-secret", WebhookTests.secret + "\n")
    let url = "redis://127.0.0.1:\(redis.port)"
    // The child (default webhook timing: 2 s debounce) makes the room alone, so it takes the lease.
    let binary = try #require(ChildProcess.builtProduct("reorder"), "build the reorder product first (swift build)")
    let child = try ChildProcess(
      executable: binary,
      arguments: [
        "serve", "--port", "0", "--data", ":memory:", "--web", "", "--redis", url, "--webhook-url", receiver.url,
        "--webhook-secret-file", secrets.path + "/webhook-secret",
      ])
    defer { child.terminate() }
    let line = try #require(child.waitForLine(timeout: 20) { $0.hasPrefix("Reorder is listening on ") })
    let childPort = try #require(
      line.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: CharacterSet(charactersIn: "/ "))) })
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let onChild = try RoomClient.join(port: childPort, room: "crash", client: "k", context: context)
    try ClusterPair.seed(onChild, items: ["x", "y"])
    try #require(waitUntil(timeout: 20, pollMilliseconds: 20) { receiver.deliveries.count >= 1 })
    #expect(receiver.deliveries[0].body["to_seq"] as? Int == 3)
    let timing = WebhookTiming(debounceSeconds: 0.5, maxWaitSeconds: 10, retryDelays: [0.2], attemptTimeoutSeconds: 5)
    let node = try TestServer {
      $0.redis = url
      $0.webhookURL = receiver.url
      $0.webhookSecretFile = secrets.path + "/webhook-secret"
      $0.webhookTiming = timing
    }
    let onNode = try RoomClient.join(port: node.port, room: "crash", client: "n", context: context)
    let redisConnection = try RedisConnection(url: RedisURL(host: "127.0.0.1", port: redis.port))
    defer { redisConnection.close() }
    // Op 4 is written at once in the holder's summary; 5…8 follow within its write interval.
    onNode.op("n:0", Ops.move("x", list: "l"))
    _ = try onNode.applied(id: "n:0")
    #expect(waitUntil(timeout: 10) { (try? redisConnection.summary(room: "crash"))??.seq == 4 })
    for n in 1..<5 { onNode.op("n:\(n)", Ops.move(n % 2 == 0 ? "x" : "y", list: "l")) }
    for n in 1..<5 { _ = try onNode.applied(id: "n:\(n)") }
    // Killed within its 2 s debounce: its board.changed of seqs 4…8 never goes out (events are
    // not stored, as on one node); its last summary covers some of them (4, unless this machine
    // stalled for a write interval).
    child.terminate()
    let covered = try #require(try redisConnection.summary(room: "crash")).seq
    try #require(covered < 8, "the holder's summary covered every op before it died")
    try #require(waitUntil(timeout: 60, pollMilliseconds: 50) { receiver.deliveries.count >= 2 })
    let taken = receiver.deliveries[1]
    #expect(taken.signatureOK)
    // Up to 30 s later (the lease's expiry), from where the dead holder's summary ended.
    #expect(taken.body["from_seq"] as? Int == Int(covered) + 1, "\(taken.body), covered \(covered)")
    #expect(taken.body["to_seq"] as? Int == 8)
    #expect(node.server.statistics()?.webhooks.delivered == 1)
    onNode.close()
  }

  @Test("a change told after a later one does not move the debounce back")
  func lateChangeKeepsTheDebounce() {
    var queue = WebhookQueue(timing: WebhookTiming(debounceSeconds: 2, maxWaitSeconds: 10), idPrefix: "t_")
    queue.changed(room: "r", epoch: "e", fromSeq: 2, toSeq: 5, now: 101, wall: 1_001)
    // Seq 1, applied at 100, reported by the next summary write.
    queue.changed(room: "r", epoch: "e", fromSeq: 1, toSeq: 1, now: 100, wall: 1_000)
    #expect(queue.due(now: 102.5).isEmpty, "quiet since 101, not since 100")
    let attempts = queue.due(now: 103)
    #expect(attempts.map(\.event.kind) == [.changed(epoch: "e", fromSeq: 1, toSeq: 5)])
    #expect(attempts.first?.event.at == 1_001)
  }
}
