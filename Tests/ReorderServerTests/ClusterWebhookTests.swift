import Foundation
import ReorderRedis
import ReorderRooms
import ReorderTransport
import TestSupport
import Testing

@testable import ReorderCluster
@testable import ReorderServer
@testable import ReorderWebhooks

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
    // A debounce long enough that a slow machine's join does not split burst 1.
    let timing = WebhookTiming(debounceSeconds: 4, maxWaitSeconds: 10, retryDelays: [0.2], attemptTimeoutSeconds: 5)
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
    let timing = WebhookTiming(debounceSeconds: 2, maxWaitSeconds: 10, retryDelays: [0.2], attemptTimeoutSeconds: 5)
    let nodes = try nodes(receiver, timing)
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let onA = try RoomClient.join(port: nodes.a.port, room: "handover", client: "a", name: "Tester a", context: context)
    try ClusterPair.seed(onA, items: ["x", "y"])
    let onB = try RoomClient.join(port: nodes.b.port, room: "handover", client: "b", name: "Tester b", context: context)
    try #require(waitUntil(timeout: 20, pollMilliseconds: 20) { receiver.deliveries.count >= 1 })
    let first = receiver.deliveries[0]
    #expect(first.body["from_seq"] as? Int == 1 && first.body["to_seq"] as? Int == 3)
    // Which node holds the lease: the one that delivered (its count moves once it has read the
    // answer, which may be after the receiver logged the request).
    func delivered(_ node: TestServer) -> Int { node.server.statistics()?.webhooks.delivered ?? 0 }
    try #require(waitUntil(timeout: 20, pollMilliseconds: 20) { delivered(nodes.a) + delivered(nodes.b) >= 1 })
    let aSent = delivered(nodes.a) == 1
    let (holder, other, client) = aSent ? (nodes.a, nodes.b, onB) : (nodes.b, nodes.a, onA)
    (aSent ? onA : onB).close()
    holder.server.shutdown()
    for n in 0..<4 { client.op("o:\(n)", Ops.move(n % 2 == 0 ? "x" : "y", list: "l")) }
    let mover = aSent ? "b" : "a"
    for n in 0..<4 { _ = try client.applied(id: "o:\(n)") }
    // The stopped holder released its lease, or its final snapshot took it again for its 30 s:
    // either way the other node reports the ops after the holder's last summary (then about 33 s
    // later: the lease, a summary interval and the 2 s debounce; more on a loaded machine).
    let waited = waitUntil(timeout: 75, pollMilliseconds: 50) { receiver.deliveries.count >= 2 }
    try #require(waited)
    let second = receiver.deliveries[1]
    #expect(second.signatureOK)
    #expect(second.body["from_seq"] as? Int == 4 && second.body["to_seq"] as? Int == 7, "\(second.body)")
    let actors = (second.body["actors"] as? [[String: Any]])?.map { $0["name"] as? String }
    #expect(actors == ["Tester \(mover)"], "the other node's member made ops 4-7: \(second.body)")
    // The count moves once the node has read the answer, which may be after the receiver logged it.
    #expect(waitUntil(timeout: 10) { other.server.statistics()?.webhooks.delivered == 1 })
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
    #expect(waitUntil(timeout: 10) { node.server.statistics()?.webhooks.delivered == 1 })
    onNode.close()
  }

  @Test("a change told after a later one does not move the debounce back")
  func lateChangeKeepsTheDebounce() {
    var queue = WebhookQueue(timing: WebhookTiming(debounceSeconds: 2, maxWaitSeconds: 10), idPrefix: "t_")
    queue.changed(room: "r", epoch: "e", fromSeq: 2, toSeq: 5, actors: [], now: 101, wall: 1_001)
    // Seq 1, applied at 100, reported by the next summary write.
    queue.changed(room: "r", epoch: "e", fromSeq: 1, toSeq: 1, actors: [], now: 100, wall: 1_000)
    #expect(queue.due(now: 102.5).isEmpty, "quiet since 101, not since 100")
    let attempts = queue.due(now: 103)
    #expect(attempts.map(\.event.kind) == [.changed(epoch: "e", fromSeq: 1, toSeq: 5, actors: [])])
    #expect(attempts.first?.event.at == 1_001)
  }

  @Test(
    "after a PUT on one node and an op on the other: one board.created, board.changed from 1 without gap or repeat; the seeded ops are counted"
  )
  func putThenOps() throws {
    let receiver = try WebhookReceiver(secret: WebhookTests.secret)
    defer { receiver.stop() }
    let timing = WebhookTiming(debounceSeconds: 0.2, maxWaitSeconds: 1, retryDelays: [0.2], attemptTimeoutSeconds: 5)
    let nodes = try nodes(receiver, timing)
    let created = try APITests().call(nodes.a.port, "PUT", "/api/v1/boards/seeded", body: APIWriteTests.board)
    #expect(created.status == 201)
    #expect(try APITests().call(nodes.b.port, "PUT", "/api/v1/boards/seeded", body: APIWriteTests.board).status == 409)
    let metrics = MetricsTests()
    let samples = try metrics.parsed(try httpGet(port: nodes.a.port, rawPath: "/metrics").text)
    #expect(metrics.value(samples, "reorder_ops_applied_total{}") == 6, "the PUT's 2 lists, 3 items, 1 assignment")
    let posted = try APITests().call(
      nodes.b.port, "POST", "/api/v1/boards/seeded/ops",
      body: #"{"ops":[{"id":"x1","op":{"kind":"move","item":"b","list":"todo"}}]}"#)
    #expect(posted.status == 200)
    func changes() -> [(Int, Int)] {
      receiver.deliveries.compactMap(\.body).filter { $0["type"] as? String == "board.changed" }.map {
        ($0["from_seq"] as? Int ?? 0, $0["to_seq"] as? Int ?? 0)
      }
    }
    try #require(waitUntil(timeout: 30) { changes().last?.1 == 7 })
    // Another debounce and summary write later nothing more came.
    Thread.sleep(forTimeInterval: timing.debounceSeconds + 2 * ClusterSummaries.writeInterval)
    let ranges = changes()
    #expect(ranges.first?.0 == 1, "\(ranges)")
    #expect(ranges.last?.1 == 7, "\(ranges)")
    for (earlier, later) in zip(ranges, ranges.dropFirst()) { #expect(later.0 == earlier.1 + 1, "\(ranges)") }
    let types = receiver.deliveries.compactMap { $0.body["type"] as? String }
    #expect(types.filter { $0 == "board.created" }.count == 1, "\(types)")
    #expect(receiver.deliveries.allSatisfy { $0.signatureOK })
  }
}

/// `SummaryLedger`: which node reports which seqs, with time and Redis' answers by hand.
@Suite("Cluster summaries: who writes and who reports")
struct SummaryLedgerTests {
  typealias Report = SummaryLedger.Report

  func ledger() -> SummaryLedger { SummaryLedger(writeInterval: 1, holdSeconds: 25, takeOverSeconds: 32) }

  func holder(stored: Bool = true, previous: UInt64? = nil, epoch: String = "e") -> SummaryLedger.Outcome {
    SummaryLedger.Outcome(holder: true, stored: stored, previous: previous.map { (epoch, $0) })
  }

  func notHolder(previous: UInt64?, epoch: String = "e") -> SummaryLedger.Outcome {
    SummaryLedger.Outcome(holder: false, stored: false, previous: previous.map { (epoch, $0) })
  }

  @Test("a new room is due at once; the write that finds the lease reports every seq, those applied meanwhile too")
  func firstWriteReportsAll() {
    var l = ledger()
    let first = l.changed(room: "r", epoch: "e", fromSeq: 1, toSeq: 1, lists: 1, items: 0, now: 10, wall: 1_010)
    #expect(first.report == nil && first.becameDue)
    let due = l.takeDue(now: 10)
    #expect(due.map(\.seq) == [1])
    // Ops 2…3 arrive while the write is out: no report yet (the lease is not known), not due again
    // before the interval.
    let during = l.changed(room: "r", epoch: "e", fromSeq: 2, toSeq: 3, lists: 1, items: 2, now: 10.1, wall: 1_010.1)
    #expect(during.report == nil && during.becameDue)
    #expect(l.nextDue() == 11)
    let (report, release) = l.written(due[0], outcome: holder(), startedAt: 10)
    #expect(report == Report(room: "r", epoch: "e", fromSeq: 1, toSeq: 3, at: 10.1, wall: 1_010.1))
    #expect(!release)
    // While the lease is surely this node's, what follows is reported at once.
    let next = l.changed(room: "r", epoch: "e", fromSeq: 4, toSeq: 4, lists: 1, items: 2, now: 12, wall: 1_012)
    #expect(next.report == Report(room: "r", epoch: "e", fromSeq: 4, toSeq: 4, at: 12, wall: 1_012))
    #expect(!next.becameDue, "it was waiting for its next write already")
    // The next write stores 3…4; nothing is reported twice.
    let second = l.takeDue(now: 12)
    #expect(second.map(\.seq) == [4])
    let none = l.written(second[0], outcome: holder(previous: 3), startedAt: 12)
    #expect(none.report == nil)
    // Past the hold, a change waits for the write that renews the lease.
    let past = l.changed(room: "r", epoch: "e", fromSeq: 5, toSeq: 5, lists: 1, items: 2, now: 40, wall: 1_040)
    #expect(past.report == nil)
    let late = l.takeDue(now: 40)
    let renewed = l.written(late[0], outcome: holder(previous: 4), startedAt: 40)
    #expect(renewed.report?.fromSeq == 5)
  }

  @Test("a node without the lease reports nothing and checks again until the holder's summary covers its seq")
  func notHolderWaitsForCoverage() {
    var l = ledger()
    _ = l.changed(room: "r", epoch: "e", fromSeq: 5, toSeq: 6, lists: 1, items: 1, now: 10, wall: 1_010)
    let due = l.takeDue(now: 10)
    let refused = l.written(due[0], outcome: notHolder(previous: 5), startedAt: 10)
    #expect(refused.report == nil)
    #expect(l.nextDue() == 11, "not covered yet: again one interval later")
    #expect(l.takeDue(now: 10.5).isEmpty)
    let again = l.takeDue(now: 11)
    let covered = l.written(again[0], outcome: notHolder(previous: 6), startedAt: 11)
    #expect(covered.report == nil)
    #expect(l.nextDue() == nil, "covered: nothing to do")
  }

  @Test(
    "after the holder dies, the node that takes the lease reports from the dead holder's last summary, with who made the ops"
  )
  func takeOverFromTheLastSummary() {
    var l = ledger()
    let ana = OpActor(sub: "u1", name: "Ana")
    _ = l.changed(
      room: "r", epoch: "e", fromSeq: 4, toSeq: 8, lists: 1, items: 1, actors: [ana], now: 10, wall: 1_010)
    var now = 10.0
    var due = l.takeDue(now: now)
    // The holder died with its summary at 4: this node is refused the lease until it lapses.
    while now < 30 {
      let refused = l.written(due[0], outcome: notHolder(previous: 4), startedAt: now)
      #expect(refused.report == nil)
      now += 1
      due = l.takeDue(now: now)
      #expect(due.count == 1)
    }
    let (report, _) = l.written(due[0], outcome: holder(previous: 4), startedAt: now)
    #expect(report == Report(room: "r", epoch: "e", fromSeq: 5, toSeq: 8, at: 10, wall: 1_010, actors: [ana]))
  }

  @Test("a live holder that covered this node's ops reports them: their actors are not reported again here")
  func coveredActorsAreDropped() {
    var l = ledger()
    _ = l.changed(
      room: "r", epoch: "e", fromSeq: 2, toSeq: 3, lists: 1, items: 1, actors: [OpActor(name: "Ana")], now: 10,
      wall: 1_010)
    _ = l.written(l.takeDue(now: 10)[0], outcome: notHolder(previous: 3), startedAt: 10)
    // The lease passes to this node; the next ops are Bo's alone.
    _ = l.changed(
      room: "r", epoch: "e", fromSeq: 4, toSeq: 4, lists: 1, items: 1, actors: [OpActor(name: "Bo")], now: 12,
      wall: 1_012)
    let (report, _) = l.written(l.takeDue(now: 12)[0], outcome: holder(previous: 3), startedAt: 12)
    #expect(report?.fromSeq == 4 && report?.actors == [OpActor(name: "Bo")])
  }

  @Test("a node gives up checking once the lease must have lapsed or been renewed by a live holder")
  func givesUpAfterTheLease() throws {
    var l = ledger()
    _ = l.changed(room: "r", epoch: "e", fromSeq: 2, toSeq: 2, lists: 1, items: 1, now: 10, wall: 1_010)
    let first = l.takeDue(now: 10)
    _ = l.written(first[0], outcome: notHolder(previous: 1), startedAt: 10)
    let due = l.takeDue(now: 42.5)
    try #require(due.count == 1, "still checking 32.5 s on")
    let refused = l.written(due[0], outcome: notHolder(previous: 1), startedAt: 42.5)
    #expect(refused.report == nil)
    #expect(l.nextDue() == nil)
  }

  @Test("a forgotten room gets one more write; its lease is released when this node holds it")
  func forgottenRooms() {
    var l = ledger()
    _ = l.changed(room: "a", epoch: "e", fromSeq: 1, toSeq: 2, lists: 1, items: 1, now: 10, wall: 1_010)
    _ = l.changed(room: "b", epoch: "e", fromSeq: 1, toSeq: 2, lists: 1, items: 1, now: 10, wall: 1_010)
    for due in l.takeDue(now: 10) {
      _ = l.written(due, outcome: due.room == "a" ? holder() : notHolder(previous: 2), startedAt: 10)
    }
    #expect(l.nextDue() == nil)
    let forgotten = [l.forget(room: "a"), l.forget(room: "b"), l.forget(room: "unknown")]
    #expect(forgotten == [true, true, false])
    var released: [String] = []
    for due in l.takeDue(now: 11) {
      let outcome = due.room == "a" ? holder(stored: false, previous: 2) : notHolder(previous: 2)
      if l.written(due, outcome: outcome, startedAt: 11).release { released.append(due.room) }
    }
    #expect(released == ["a"])
    #expect(l.nextDue() == nil)
    let left = l.removeAll()
    #expect(left.isEmpty)
  }

  @Test(
    "a new epoch waits for its first write: reported from 1 after another epoch's summary, after a PUT's summary from its seq + 1"
  )
  func newEpochAfterItsFirstWrite() {
    var l = ledger()
    _ = l.changed(room: "r", epoch: "old", fromSeq: 1, toSeq: 9, lists: 1, items: 1, now: 10, wall: 1_010)
    let first = l.takeDue(now: 10)
    _ = l.written(first[0], outcome: holder(), startedAt: 10)
    // Held, but the new history's start is not known here: a PUT's node reported its seeded ops.
    let replaced = l.changed(room: "r", epoch: "new", fromSeq: 1, toSeq: 2, lists: 1, items: 1, now: 11, wall: 1_011)
    #expect(replaced.report == nil)
    let second = l.takeDue(now: 11)
    #expect(second.map(\.epoch) == ["new"])
    let fromOne = l.written(second[0], outcome: holder(previous: 9, epoch: "old"), startedAt: 11)
    #expect(fromOne.report == Report(room: "r", epoch: "new", fromSeq: 1, toSeq: 2, at: 11, wall: 1_011))
    // Held and known again: the next change goes at once.
    let next = l.changed(room: "r", epoch: "new", fromSeq: 3, toSeq: 3, lists: 1, items: 1, now: 11.5, wall: 1_011.5)
    #expect(next.report?.fromSeq == 3)
    // Another replace, by a PUT of 6 ops whose summary (seq 6) is stored before this node's write.
    _ = l.changed(room: "r", epoch: "put", fromSeq: 1, toSeq: 7, lists: 1, items: 1, now: 12, wall: 1_012)
    let third = l.takeDue(now: 12)
    let afterPut = l.written(third[0], outcome: holder(previous: 6, epoch: "put"), startedAt: 12)
    #expect(afterPut.report == Report(room: "r", epoch: "put", fromSeq: 7, toSeq: 7, at: 12, wall: 1_012))
    let held = l.removeAll()
    #expect(held == ["r"], "this node holds the lease")
  }

}
