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

  /// The results request `request` was answered with on `node`; nil, recorded as an issue, when
  /// it was not answered so.
  static func results(_ node: ClusterHarness.Node, _ request: UInt64) -> [APIOpResult]? {
    for case .apiDone(request, let results) in node.apiAnswers { return results }
    Issue.record("no answer to request \(request): \(node.apiAnswers)")
    return nil
  }

  /// A cluster of `nodes` whose room `r` was seeded through client 1 on node 0.
  static func seeded(nodes: Int, compactEvery: UInt64? = nil) -> (ClusterHarness, ConnectionHandle) {
    let cluster = ClusterHarness(nodes: nodes, compactEvery: compactEvery)
    let a = cluster.join(0, 1)
    seedCluster(cluster, from: a)
    return (cluster, a)
  }

  @Test("A request's ops are appended together, each made with the ones before it applied, and resolve as on one node")
  func pipelined() {
    let (cluster, a) = Self.seeded(nodes: 2)
    let b = cluster.join(1, 2)
    cluster.settle()
    let node = cluster.nodes[1]
    cluster.perform(1, node.registry.applyAPIOps("r", request: 7, ops: Self.ops, now: cluster.now))
    // p2 moves what p1 inserts: made on a copy with p1 applied, and appended right behind it; p3
    // names no item and is refused without an append.
    #expect(
      node.appends.map { String(decoding: $0.key, as: UTF8.self) } == [
        OpRecord.key(client: "api", id: "p1"), OpRecord.key(client: "api", id: "p2"),
      ])
    cluster.executeAppends(1)
    cluster.deliverReplies(1, count: 1)
    #expect(node.apiAnswers.isEmpty)
    cluster.settle()
    guard let results = Self.results(node, 7) else { return }
    #expect(node.apiAnswers.count == 1)
    #expect(results.map(\.seq) == [8, 9, nil])
    #expect(results.last?.json["code"] == .string("unknown_item"))
    #expect(results[1].json["op"]?["kind"] == .string("move"))
    #expect(results[1].json["op"]?["after"] == .string("f"))
    for (i, c) in [(0, a), (1, b)] {
      #expect(cluster.nodes[i].applied(c).suffix(2).map { $0["by"] } == [.string("api"), .string("api")])
      #expect(order(cluster.board(i)) == ["a", "b", "c", "d", "e", "f", "n"])
    }
    // The same request on the other node: the seqs the log gave, nothing appended.
    let appends = cluster.log.appendCalls
    cluster.perform(0, cluster.nodes[0].registry.applyAPIOps("r", request: 8, ops: Self.ops, now: cluster.now))
    cluster.settle()
    #expect(cluster.log.appendCalls == appends)
    guard let again = Self.results(cluster.nodes[0], 8) else { return }
    #expect(again.prefix(2) == results.prefix(2))
  }

  @Test("Ops past a compaction boundary are refused stale and made again, in order, after it")
  func staleInTheMiddle() throws {
    let (cluster, _) = Self.seeded(nodes: 2, compactEvery: 10)
    let node = cluster.nodes[0]
    var previous = "f"
    let ops: [(id: String, intent: Result<Intent, ProtocolError>)] = (1...6).map { n in
      defer { previous = "x\(n)" }
      return ("x\(n)", Self.intent(#"{"kind":"insert","list":"L","item":"x\#(n)","after":"\#(previous)","fields":{}}"#))
    }
    cluster.perform(0, node.registry.applyAPIOps("r", request: 1, ops: ops, now: cluster.now))
    #expect(node.appends.count == 6)
    cluster.settle()
    // Seq 7 was the last: 8–10 land, 11–13 are refused (made before the boundary at 10) and made
    // again on the compacted board.
    #expect(cluster.log.staleRefusals == 3)
    guard let results = Self.results(node, 1) else { return }
    #expect(results.map(\.seq) == [8, 9, 10, 11, 12, 13])
    #expect(order(cluster.board(0)) == ["a", "b", "c", "d", "e", "f", "x1", "x2", "x3", "x4", "x5", "x6"])
    #expect(try cluster.freshBoard() == cluster.board(0))
    cluster.settle()
    #expect(cluster.board(1) == nil || cluster.board(1) == cluster.board(0))
  }

  @Test("An id sent twice in one request is made once and answered twice, as on one node")
  func repeatedIDInOneRequest() {
    let (cluster, _) = Self.seeded(nodes: 1)
    let node = cluster.nodes[0]
    let ops: [(id: String, intent: Result<Intent, ProtocolError>)] = [
      ("x", Self.intent(#"{"kind":"insert","list":"L","item":"A","after":"a","fields":{}}"#)),
      ("x", Self.intent(#"{"kind":"insert","list":"L","item":"B","after":"a","fields":{}}"#)),
      ("y", Self.intent(#"{"kind":"move","item":"B","list":"L","after":"A"}"#)),
    ]
    cluster.perform(0, node.registry.applyAPIOps("r", request: 9, ops: ops, now: cluster.now))
    #expect(node.appends.count == 1)
    cluster.settle()
    guard let results = Self.results(node, 9) else { return }
    #expect(results[0] == results[1])
    #expect(results[0].seq == 8)
    #expect(results[2].json["code"] == .string("unknown_item"))
    #expect(!order(cluster.board(0)).contains("B"))
  }

  @Test("A member's op made while a request's ops are out takes an op id of its own")
  func clockMovesOnAfterASeries() throws {
    let (cluster, a) = Self.seeded(nodes: 2)
    let b = cluster.join(1, 2)
    cluster.settle()
    let node = cluster.nodes[0]
    let ops: [(id: String, intent: Result<Intent, ProtocolError>)] = [
      ("q1", Self.intent(#"{"kind":"insert","list":"L","after":"a","fields":{}}"#)),
      ("q2", Self.intent(#"{"kind":"insert","list":"L","after":"b","fields":{}}"#)),
    ]
    cluster.perform(0, node.registry.applyAPIOps("r", request: 2, ops: ops, now: cluster.now))
    cluster.op(0, a, "m", #"{"kind":"insert","list":"L","item":"m","after":"c","fields":{}}"#)
    cluster.settle()
    #expect(order(cluster.board(0)).count == 9)
    #expect(order(cluster.board(0)).contains("m"))
    #expect(cluster.board(1) == cluster.board(0))
    #expect(try cluster.freshBoard() == cluster.board(0))
    #expect(cluster.nodes[1].applied(b).count == 3)
  }

  @Test("A replaced board ends the requests on it, refuses ops until reloaded, and welcomes its members again")
  func replaced() {
    let (cluster, a) = Self.seeded(nodes: 1)
    let node = cluster.nodes[0]
    cluster.perform(0, node.registry.applyAPIOps("r", request: 3, ops: Self.ops, now: cluster.now))
    cluster.op(0, a, "out", #"{"kind":"move","item":"a","list":"L","after":"b"}"#)
    cluster.log.rooms["r"] = FakeSharedLog.RoomLog(epoch: "other")
    cluster.perform(0, node.registry.logHistoryChanged(room: "r", epoch: "other", now: cluster.now))
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
    cluster.perform(0, node.registry.logHistoryChanged(room: "r", epoch: "other", now: cluster.now))
    #expect(node.frames(a, "welcome").count == 2)
  }

  @Test("A deleted board closes its connections 4404, ends its requests, and leaves the roster; a join loads it empty")
  func deleted() {
    let (cluster, a) = Self.seeded(nodes: 1)
    let node = cluster.nodes[0]
    cluster.perform(0, node.registry.applyAPIOps("r", request: 4, ops: Self.ops, now: cluster.now))
    cluster.log.rooms["r"] = nil
    cluster.perform(0, node.registry.logHistoryChanged(room: "r", epoch: nil, now: cluster.now))
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

  @Test("An op the log cannot take ends its request (503 in the server); the ops the log took are applied")
  func unavailable() {
    let (cluster, a) = Self.seeded(nodes: 1)
    let node = cluster.nodes[0]
    cluster.perform(0, node.registry.applyAPIOps("r", request: 5, ops: Self.ops, now: cluster.now))
    cluster.executeAppends(0, count: 1)
    cluster.log.available = false
    cluster.executeAppends(0)
    // The request ends only once none of its ops is out.
    cluster.deliverReplies(0, count: 1)
    #expect(node.apiAnswers.isEmpty)
    cluster.settle()
    #expect(node.apiAnswers == [.apiFailed(request: 5, reason: "the shared log is unavailable; re-send later")])
    // Re-sent once the log is back: p1 is answered from the log's ids, p2 and p3 run.
    cluster.log.available = true
    cluster.perform(0, node.registry.applyAPIOps("r", request: 6, ops: Self.ops, now: cluster.now))
    cluster.settle()
    guard let results = Self.results(node, 6) else { return }
    #expect(results.map(\.seq) == [8, 9, nil])
    #expect(node.applied(a).filter { $0["by"] == .string("api") }.count == 2)
  }

  @Test("An op id sent again beyond the replica's catch-up window answers its first seq, its op null")
  func repeatedBeyondMemory() {
    var limits = RoomLimits()
    limits.maxCatchUpOps = 5
    limits.maxOpsPerSecond = 1_000_000
    let cluster = ClusterHarness(nodes: 2, limits: limits)
    let a = cluster.join(0, 1)
    seedCluster(cluster, from: a)
    cluster.join(1, 2)
    cluster.settle()
    let node = cluster.nodes[1]
    cluster.perform(1, node.registry.applyAPIOps("r", request: 1, ops: [Self.ops[0]], now: cluster.now))
    cluster.settle()
    guard let first = Self.results(node, 1), let seq = first.first?.seq else { return }
    #expect(first[0].json["op"]?["kind"] == .string("insert"))
    // The window keeps up to 1,024 frames beyond `maxCatchUpOps` before it drops any.
    let moves = 5 + 1_024 + 1
    for i in 0..<moves {
      cluster.op(0, a, "m\(i)", #"{"kind":"move","item":"a","list":"L","after":"\#(i % 2 == 0 ? "b" : "c")"}"#)
      if i % 64 == 63 { cluster.settle() }
    }
    cluster.settle()
    node.apiAnswers = []
    cluster.perform(1, node.registry.applyAPIOps("r", request: 2, ops: [Self.ops[0]], now: cluster.now))
    cluster.settle()
    // Nothing was appended again; the log's records hold the maker's intent, not the resolved op.
    #expect(Self.results(node, 2) == [.applied(id: "p1", seq: seq, op: nil)])
    #expect(Self.results(node, 2)?.first?.json["op"] == .null)
    #expect(cluster.nodes[0].registry.room("r")?.seq == seq + UInt64(moves))
  }
}
