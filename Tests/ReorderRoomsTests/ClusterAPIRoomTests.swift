import Testing

@testable import ReorderRooms

/// The HTTP API's ops and whole-board changes in cluster mode, on registries over the shared log's
/// double (no sockets, no Redis).
@Suite("Cluster mode: the API's ops and whole-board changes")
struct ClusterAPIRoomTests {
  static func intent(_ json: String) -> Result<Intent, ProtocolError> {
    Result { () throws(ProtocolError) in
      guard let value = try? JSONValue.parse(Array(json.utf8)) else { throw ProtocolError(.invalidValue, "no JSON") }
      return try Intent.decode(value)
    }
  }

  static let ops: [(id: String, intent: Result<Intent, ProtocolError>)] = [
    ("p1", intent(#"{"kind":"insert","list":"L","item":"n","after":"a","fields":{}}"#)),
    ("p2", intent(#"{"kind":"move","item":"n","list":"L","after":"f"}"#)),
    ("p3", intent(#"{"kind":"delete","item":"nope"}"#)),
  ]

  @Test("A request's ops go through the log one at a time, each made once the one before is applied")
  func oneAtATime() {
    let cluster = ClusterHarness(nodes: 2)
    let a = cluster.join(0, 1)
    seedCluster(cluster, from: a)
    let b = cluster.join(1, 2)
    cluster.settle()
    let node = cluster.nodes[1]
    cluster.perform(1, node.registry.applySharedAPIOps("r", request: 7, ops: Self.ops, now: cluster.now))
    // p2 moves what p1 inserts: it is made only once p1 is applied here.
    #expect(node.appends.map { String(decoding: $0.key, as: UTF8.self) } == [OpRecord.key(client: "api", id: "p1")])
    cluster.executeAppends(1)
    #expect(node.apiAnswers.isEmpty)
    cluster.deliverReplies(1)
    #expect(node.appends.map { String(decoding: $0.key, as: UTF8.self) } == [OpRecord.key(client: "api", id: "p2")])
    cluster.settle()
    guard case .apiDone(7, let results)? = node.apiAnswers.first, node.apiAnswers.count == 1 else {
      Issue.record("no answer: \(node.apiAnswers)")
      return
    }
    #expect(results.map(\.seq) == [8, 9, nil])
    #expect(results.last?.json["code"] == .string("unknown_item"))
    for (i, c) in [(0, a), (1, b)] {
      #expect(cluster.nodes[i].applied(c).suffix(2).map { $0["by"] } == [.string("api"), .string("api")])
    }
    // The same request on the other node: the seqs the log gave, nothing appended.
    let appends = cluster.log.appendCalls
    cluster.perform(0, cluster.nodes[0].registry.applySharedAPIOps("r", request: 8, ops: Self.ops, now: cluster.now))
    cluster.settle()
    #expect(cluster.log.appendCalls == appends)
    guard case .apiDone(8, let again)? = cluster.nodes[0].apiAnswers.first else {
      Issue.record("no answer: \(cluster.nodes[0].apiAnswers)")
      return
    }
    #expect(again.prefix(2) == results.prefix(2))
  }

  @Test("A replaced board ends the requests on it, refuses ops until reloaded, and welcomes its members again")
  func replaced() {
    let cluster = ClusterHarness(nodes: 1)
    let a = cluster.join(0, 1)
    seedCluster(cluster, from: a)
    let node = cluster.nodes[0]
    cluster.perform(0, node.registry.applySharedAPIOps("r", request: 3, ops: Self.ops, now: cluster.now))
    cluster.op(0, a, "out", #"{"kind":"move","item":"a","list":"L","after":"b"}"#)
    cluster.log.rooms["r"] = FakeSharedLog.RoomLog(epoch: "other")
    cluster.perform(0, node.registry.sharedHistoryChanged(room: "r", epoch: "other", now: cluster.now))
    #expect(node.apiAnswers == [.apiFailed(request: 3, reason: "the board was replaced")])
    // The op still out is refused at once, retryable; its late answer changes nothing.
    #expect(node.frames(a, "rejected").map { $0["id"] } == [.string("out")])
    #expect(node.frames(a, "rejected").map { $0["code"] } == [.string("unavailable")])
    cluster.settle()
    #expect(node.frames(a, "rejected").count == 1)
    let welcomes = node.frames(a, "welcome")
    #expect(welcomes.count == 2)
    #expect(welcomes.last?["epoch"] == .string("other"))
    #expect(node.closed[a] == nil)
    #expect(node.following["r"] == 0)
    // The same history again is no change.
    cluster.perform(0, node.registry.sharedHistoryChanged(room: "r", epoch: "other", now: cluster.now))
    #expect(node.frames(a, "welcome").count == 2)
  }

  @Test("A deleted board closes its connections 4404, ends its requests, and leaves the roster; a join loads it empty")
  func deleted() {
    let cluster = ClusterHarness(nodes: 1)
    let a = cluster.join(0, 1)
    seedCluster(cluster, from: a)
    let node = cluster.nodes[0]
    cluster.perform(0, node.registry.applySharedAPIOps("r", request: 4, ops: Self.ops, now: cluster.now))
    cluster.log.rooms["r"] = nil
    cluster.perform(0, node.registry.sharedHistoryChanged(room: "r", epoch: nil, now: cluster.now))
    #expect(node.apiAnswers == [.apiFailed(request: 4, reason: "the board was deleted")])
    #expect(node.closed[a]?.code == 4404)
    #expect(node.registry.room("r") == nil)
    #expect(node.following["r"] == nil)
    #expect(cluster.log.rooms["r"]?.roster.isEmpty ?? true)
    cluster.leave(0, a)
    let fresh = cluster.join(0, 2)
    cluster.settle()
    #expect(node.frames(fresh, "welcome").first?["seq"] == .number(0))
  }

  @Test("An op the log cannot take ends its request (503 in the server); the ops before it are applied")
  func unavailable() {
    let cluster = ClusterHarness(nodes: 1)
    let a = cluster.join(0, 1)
    seedCluster(cluster, from: a)
    let node = cluster.nodes[0]
    cluster.perform(0, node.registry.applySharedAPIOps("r", request: 5, ops: Self.ops, now: cluster.now))
    cluster.executeAppends(0)
    cluster.deliverReplies(0)
    cluster.log.available = false
    cluster.settle()
    #expect(node.apiAnswers == [.apiFailed(request: 5, reason: "the shared log is unavailable; re-send later")])
    // Re-sent once the log is back: p1 is answered from the log's ids, p2 and p3 run.
    cluster.log.available = true
    cluster.perform(0, node.registry.applySharedAPIOps("r", request: 6, ops: Self.ops, now: cluster.now))
    cluster.settle()
    guard case .apiDone(6, let results)? = node.apiAnswers.last else {
      Issue.record("no answer: \(node.apiAnswers)")
      return
    }
    #expect(results.map(\.seq) == [8, 9, nil])
    #expect(node.applied(a).filter { $0["by"] == .string("api") }.count == 2)
  }
}
