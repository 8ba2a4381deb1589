import Foundation
import ReorderRooms
import TestSupport
import Testing

@testable import ReorderServer
@testable import ReorderWebhooks

/// Webhooks over real sockets on 127.0.0.1: a Python receiver checks every signature.
@Suite("Webhooks", .serialized)
struct WebhookTests {
  static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

  /// A server whose webhooks go to `receiver`, with `timing`.
  func server(_ receiver: WebhookReceiver, _ timing: WebhookTiming, directory: TemporaryDirectory) throws
    -> InProcessServer
  {
    try directory.write("webhook-secret", Self.secret + "\n")
    return try InProcessServer { configuration in
      configuration.webhookURL = receiver.url
      configuration.webhookSecretFile = directory.path + "/webhook-secret"
      configuration.webhookTiming = timing
    }
  }

  func webhookStatistics(_ server: InProcessServer) -> WebhookStatistics {
    server.server.statistics()?.webhooks ?? WebhookStatistics()
  }

  @Test("a burst of ops is one signed board.changed; two 503s are retried and the third attempt is delivered")
  func retriedUntilDelivered() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let receiver = try WebhookReceiver(secret: Self.secret, fail: 2)
    defer { receiver.stop() }
    let timing = WebhookTiming(
      debounceSeconds: 1, maxWaitSeconds: 10, retryDelays: [0.2, 0.4, 0.8, 1.6], attemptTimeoutSeconds: 5)
    let server = try server(receiver, timing, directory: directory)
    let client = try server.join(room: "hooked", client: "a", name: "Ana")
    client.op("a:0", Ops.createList("l"))
    for n in 1...9 { client.op("a:\(n)", Ops.insert("i\(n)", list: "l", after: n == 1 ? nil : "i\(n - 1)")) }
    _ = try client.applied(id: "a:9")
    // The receiver logs each request before answering it, but its log reaches this process through
    // a pipe: the server may count the delivery before the test has read the last line.
    #expect(
      server.waitUntil(timeout: 20) { webhookStatistics(server).delivered == 1 && receiver.deliveries.count == 3 })
    let deliveries = receiver.deliveries
    #expect(deliveries.map(\.status) == [503, 503, 204])
    #expect(deliveries.allSatisfy { $0.signatureOK })
    #expect(Set(deliveries.map(\.id)).count == 1, "a retry is the same message")
    let now = Int(Date().timeIntervalSince1970)
    #expect(deliveries.allSatisfy { abs($0.timestamp - now) < 300 })
    let body = try #require(deliveries.last?.body)
    #expect(body["type"] as? String == "board.changed")
    #expect(body["room"] as? String == "hooked")
    #expect(body["from_seq"] as? Int == 1)
    #expect(body["to_seq"] as? Int == 10)
    let actors = try #require(body["actors"] as? [[String: Any]])
    #expect(actors.count == 1 && actors.first?["name"] as? String == "Ana", "\(actors)")
    #expect(actors.first?["sub"] is NSNull, "no token, no sub")
    #expect(body["epoch"] as? String == client.welcome["epoch"]?.stringValue)
    #expect((body["at"] as? String)?.hasSuffix("Z") == true)
    let statistics = webhookStatistics(server)
    #expect(statistics.retried == 2)
    #expect(statistics.failed == 0)
    let metrics = MetricsTests()
    let samples = try metrics.parsed(try server.get("/metrics").text)
    #expect(metrics.value(samples, "reorder_webhook_deliveries_total{result=delivered}") == 1)
    #expect(metrics.value(samples, "reorder_webhook_deliveries_total{result=retried}") == 2)
    #expect(metrics.value(samples, "reorder_webhook_deliveries_total{result=dropped}") == 0)
    client.close()
    server.server.shutdown()
  }

  @Test("changes that go on give a board.changed at least every maxWait, with contiguous ranges")
  func continuingChanges() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let receiver = try WebhookReceiver(secret: Self.secret)
    defer { receiver.stop() }
    let timing = WebhookTiming(debounceSeconds: 0.5, maxWaitSeconds: 1, retryDelays: [0.2], attemptTimeoutSeconds: 5)
    let server = try server(receiver, timing, directory: directory)
    let client = try server.join(room: "busy", client: "b")
    client.op("b:0", Ops.createList("l"))
    client.op("b:1", Ops.insert("x", list: "l"))
    client.op("b:2", Ops.insert("y", list: "l"))
    var ops = 3
    // Moves every 0.1 s (never 0.5 s quiet) for three times maxWait.
    let end = Date().addingTimeInterval(3)
    while Date() < end {
      client.op("b:\(ops)", Ops.move(ops % 2 == 0 ? "x" : "y", list: "l"))
      _ = try client.applied(id: "b:\(ops)")
      ops += 1
      _ = server.waitUntil(timeout: 0.1) { false }  // the server runs meanwhile
    }
    #expect(server.waitUntil(timeout: 10) { receiver.deliveries.last?.body["to_seq"] as? Int == ops })
    let ranges = receiver.deliveries.map { ($0.body["from_seq"] as? Int ?? 0, $0.body["to_seq"] as? Int ?? 0) }
    #expect(ranges.count >= 2, "more than one event while the changes went on")
    #expect(ranges.first?.0 == 1)
    for (earlier, later) in zip(ranges, ranges.dropFirst()) { #expect(later.0 == earlier.1 + 1) }
    #expect(receiver.deliveries.allSatisfy { $0.signatureOK && $0.status == 204 })
    client.close()
    server.server.shutdown()
  }

  @Test(
    "PUT and DELETE through the API send board.created and board.deleted; board.changed covers the seeded ops from 1, gap-free"
  )
  func createdAndDeletedThroughTheAPI() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let receiver = try WebhookReceiver(secret: Self.secret, fail: 0)
    defer { receiver.stop() }
    try directory.write("keys", APITests.key + "\n")
    try directory.write("webhook-secret", Self.secret + "\n")
    let timing = WebhookTiming(
      debounceSeconds: 0.05, maxWaitSeconds: 1, retryDelays: [0.1, 0.1, 0.1, 0.1], attemptTimeoutSeconds: 5)
    let server = try InProcessServer { configuration in
      configuration.apiKeyFile = directory.path + "/keys"
      configuration.webhookURL = receiver.url
      configuration.webhookSecretFile = directory.path + "/webhook-secret"
      configuration.webhookTiming = timing
    }
    let created = try APITests().call(server, "PUT", "/api/v1/boards/hooked", body: APIWriteTests.board)
    #expect(created.status == 201)
    #expect(try APITests().call(server, "PUT", "/api/v1/boards/hooked", body: APIWriteTests.board).status == 409)
    let epoch = created.json?["epoch"]?.stringValue
    let posted = try APITests().call(
      server, "POST", "/api/v1/boards/hooked/ops",
      body: #"{"ops":[{"id":"x1","op":{"kind":"move","item":"b","list":"todo"}}]}"#)
    #expect(posted.status == 200)
    #expect(try APITests().call(server, "DELETE", "/api/v1/boards/hooked").status == 204)
    try #require(
      server.waitUntil(timeout: 60) {
        receiver.deliveries.compactMap(\.body).contains { $0["type"] as? String == "board.deleted" }
      })
    let bodies = receiver.deliveries.compactMap(\.body)
    #expect(receiver.deliveries.allSatisfy { $0.signatureOK })
    let types = bodies.compactMap { $0["type"] as? String }
    #expect(types.first == "board.created", "\(types)")
    #expect(types.last == "board.deleted", "\(types)")
    #expect(types.filter { $0 == "board.created" }.count == 1, "the 409 created nothing")
    #expect(bodies.first?["room"] as? String == "hooked")
    #expect(bodies.first?["epoch"] as? String == epoch)
    // The doc's gap rule: the first board.changed of an epoch starts at 1, each next one at the
    // previous to_seq + 1; the PUT's six ops and the POST's one, none missing.
    let changes = bodies.filter { $0["type"] as? String == "board.changed" }
    #expect(changes.allSatisfy { $0["epoch"] as? String == epoch })
    let ranges = changes.map { ($0["from_seq"] as? Int ?? 0, $0["to_seq"] as? Int ?? 0) }
    #expect(ranges.first?.0 == 1, "\(ranges)")
    #expect(ranges.last?.1 == 7, "\(ranges)")
    for (earlier, later) in zip(ranges, ranges.dropFirst()) { #expect(later.0 == earlier.1 + 1, "\(ranges)") }
    #expect(bodies.last?["room"] as? String == "hooked")
    server.server.shutdown()
  }

  @Test("a receiver that never answers does not hold up ops; its attempts time out and are retried")
  func deadReceiverDoesNotSlowOps() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let receiver = try WebhookReceiver(secret: Self.secret, hang: true)
    defer { receiver.stop() }
    let timing = WebhookTiming(
      debounceSeconds: 0.02, maxWaitSeconds: 0.1, retryDelays: [0.05, 0.05, 0.05, 0.05], attemptTimeoutSeconds: 0.3)
    let server = try server(receiver, timing, directory: directory)
    let clients = try (0..<3).map { try server.join(room: "r\($0)", client: "c\($0)") }
    for (index, client) in clients.enumerated() { client.op("c\(index):0", Ops.createList("l")) }
    for n in 1...60 {
      for (index, client) in clients.enumerated() {
        client.op("c\(index):\(n)", Ops.insert("i\(n)", list: "l"))
        _ = try client.applied(id: "c\(index):\(n)")
      }
    }
    #expect(server.waitUntil(timeout: 20) { webhookStatistics(server).retried >= 3 })
    let statistics = webhookStatistics(server)
    #expect(statistics.delivered == 0)
    for client in clients { client.close() }
    server.server.shutdown()
  }
}
