import TestRandom
import Testing

@testable import ReorderCRDT
@testable import ReorderRooms

/// Compaction in cluster mode: every replica compacts right after applying an entry at a multiple
/// of the interval (here 8 after the 7 seeding ops, unless a test says otherwise); the log refuses
/// an op made before a boundary it would land after (`stale`), and its node makes it again.
@Suite("Cluster mode: compaction at agreed seqs")
struct ClusterCompactionTests {
  /// Two nodes compacting every `every` seqs, room `r` seeded from node 0's member `a` (seq 7),
  /// `b` on node 1.
  private func twoNodes(every: UInt64 = 8) -> (ClusterHarness, ConnectionHandle, ConnectionHandle) {
    var limits = RoomLimits()
    limits.snapshotEvery = Int(every)
    let cluster = ClusterHarness(nodes: 2, limits: limits, compactEvery: every)
    let a = cluster.join(0, 1)
    seedCluster(cluster, from: a)
    let b = cluster.join(1, 2, client: "cb")
    cluster.settle()
    return (cluster, a, b)
  }

  private func move(_ item: String, after: String) -> String {
    #"{"kind":"move","item":"\#(item)","list":"L","after":"\#(after)"}"#
  }

  /// The record of the log's entry at `seq`.
  private func record(_ cluster: ClusterHarness, _ seq: UInt64) throws -> OpRecord {
    try OpRecord(payload: try #require(cluster.log.rooms["r"]?.entries.first { $0.seq == seq }).payload)
  }

  /// A snapshot's bytes with what differs between replicas of one state set aside: the replica's
  /// own id, and its Lamport clock (the ops a node made that the log refused or has not applied
  /// yet moved it on). Compacting again changes nothing in a compacted snapshot.
  private func normalized(_ bytes: [UInt8]) throws -> [UInt8] {
    var board = try Board(snapshot: bytes, replica: ReplicaID(99))
    board.lamport = 1 << 40
    return board.compactedSnapshot()
  }

  @Test("An op made before a boundary that the log would place after it is refused stale, made again and applied")
  func staleOpIsMadeAgain() throws {
    let (cluster, a, b) = twoNodes()
    cluster.op(0, a, "m1", move("a", after: "f"))
    cluster.op(1, b, "m2", move("b", after: "e"))
    // B's op takes seq 8, the boundary: A's, made at 7, would land at 9, after it.
    cluster.executeAppends(1)
    cluster.executeAppends(0)
    #expect(cluster.log.rooms["r"]!.seq == 8)
    #expect(cluster.nodes[0].replies.first?.result == .failure(.stale(8)))
    cluster.settle()
    let remade = try record(cluster, 9)
    #expect(remade.id == "m1")
    #expect(remade.madeAt == 8)
    #expect(try record(cluster, 8).madeAt == 7)
    #expect(cluster.nodes[0].frames(a, "rejected").isEmpty)
    #expect(cluster.nodes[0].applied(a).last?["seq"] == .number(9))
    #expect(order(cluster.board(0)) == ["c", "d", "e", "b", "f", "a"])
    #expect(cluster.board(0) == cluster.board(1))
    #expect(cluster.board(0) == (try cluster.freshBoard()))
    // Both replicas snapshotted the compacted board at 8: the same bytes.
    let at8 = try cluster.nodes.map { node in try normalized(try #require(node.snapshots.first { $0.seq == 8 }).bytes) }
    #expect(at8[0] == at8[1])
    #expect(try normalized(cluster.log.rooms["r"]!.snapshot!.bytes) == at8[0])
  }

  @Test("A client's op made after a boundary waits for its earlier op that may still be refused stale")
  func orderKeptAcrossStale() throws {
    let (cluster, a, b) = twoNodes()
    cluster.op(0, a, "m1", move("a", after: "f"))
    cluster.op(1, b, "m2", move("b", after: "e"))
    cluster.executeAppends(1)
    cluster.deliverStream(0)  // A applies 8 and compacts; m1 is still out
    #expect(cluster.nodes[0].registry.room("r")?.seq == 8)
    cluster.op(0, a, "m3", move("a", after: "c"))
    #expect(cluster.nodes[0].appends.count == 1)  // m3 waits behind m1
    cluster.settle()
    let ids = cluster.nodes[0].applied(a).compactMap { $0["id"]?.stringValue }
    #expect(ids.suffix(3) == ["m2", "m1", "m3"])
    #expect(order(cluster.board(1)) == ["c", "a", "d", "e", "b", "f"])
    #expect(cluster.board(0) == cluster.board(1))
    #expect(cluster.board(0) == (try cluster.freshBoard()))
  }

  @Test("Two ops of one client refused stale, answered one by one, are made again in the order sent")
  func twoStaleOpsKeepTheirOrder() throws {
    let (cluster, a, b) = twoNodes()
    cluster.op(0, a, "m1", move("a", after: "f"))
    cluster.op(0, a, "m2", move("a", after: "c"))
    cluster.op(1, b, "m3", move("b", after: "e"))
    cluster.executeAppends(1)
    cluster.executeAppends(0)
    #expect(cluster.nodes[0].replies.map(\.result) == [.failure(.stale(8)), .failure(.stale(8))])
    cluster.deliverStream(0)  // A applies 8 before either answer
    cluster.deliverReplies(0, count: 1)
    cluster.deliverReplies(0, count: 1)
    cluster.settle()
    let ids = cluster.nodes[0].applied(a).compactMap { $0["id"]?.stringValue }
    #expect(ids.suffix(3) == ["m3", "m1", "m2"])
    #expect(order(cluster.board(0)) == ["c", "a", "d", "e", "b", "f"])
    #expect(cluster.board(0) == cluster.board(1))
  }

  @Test("An API op refused stale is made again; its request gets the seq it ends up with")
  func staleAPIOp() throws {
    let (cluster, a, _) = twoNodes()
    let ops: [(id: String, intent: Result<Intent, ProtocolError>)] = [
      ("p1", ClusterAPIRoomTests.intent(move("c", after: "f")))
    ]
    cluster.perform(1, cluster.nodes[1].registry.applyAPIOps("r", request: 3, ops: ops, now: cluster.now))
    cluster.op(0, a, "m1", move("a", after: "f"))
    cluster.executeAppends(0)
    cluster.executeAppends(1)
    #expect(cluster.nodes[1].replies.first?.result == .failure(.stale(8)))
    cluster.settle()
    guard case .apiDone(3, let results)? = cluster.nodes[1].apiAnswers.first else {
      Issue.record("no answer: \(cluster.nodes[1].apiAnswers)")
      return
    }
    #expect(results.map(\.seq) == [9])
    #expect(try record(cluster, 9).madeAt == 8)
    #expect(cluster.board(0) == cluster.board(1))
    #expect(cluster.board(0) == (try cluster.freshBoard()))
  }

  @Test("A re-send after a stale refusal is appended once, with the seq the op ends up with")
  func resendAfterStale() throws {
    let (cluster, a, b) = twoNodes()
    cluster.op(0, a, "m1", move("a", after: "f"))
    cluster.op(1, b, "m2", move("b", after: "e"))
    cluster.executeAppends(1)
    cluster.executeAppends(0)
    cluster.deliverReplies(0)  // stale: m1 waits for A to apply 8
    cluster.op(0, a, "m1", move("a", after: "f"))  // the client re-sends it meanwhile
    cluster.settle()
    let m1 = cluster.log.rooms["r"]!.entries.filter { (try? OpRecord(payload: $0.payload).id) == "m1" }
    #expect(m1.map(\.seq) == [9])
    #expect(cluster.nodes[0].applied(a).filter { $0["id"] == .string("m1") }.allSatisfy { $0["seq"] == .number(9) })
    #expect(cluster.board(0) == (try cluster.freshBoard()))
  }

  /// Three nodes, two clients each, random moves, inserts and deletes with every append, reply
  /// and stream entry delivered in a random order, over many boundaries of 5.
  @Test(
    "Three replicas making concurrent ops across boundaries end with identical boards and snapshots", arguments: 0..<12)
  func randomReplicas(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    var limits = RoomLimits()
    limits.snapshotEvery = 5
    limits.maxOpsPerSecond = 100_000
    let cluster = ClusterHarness(nodes: 3, limits: limits, compactEvery: 5)
    let seeder = cluster.join(0, 100)
    seedCluster(cluster, from: seeder)
    var clients: [(node: Int, c: ConnectionHandle)] = []
    for k in 0..<6 { clients.append((k % 3, cluster.join(k % 3, UInt64(k + 1), client: "k\(k)"))) }
    cluster.settle()
    var items = ["a", "b", "c", "d", "e", "f"]
    for n in 0..<240 {
      let (node, c) = clients[random.below(clients.count)]
      let item = items[random.below(items.count)]
      let other = items[random.below(items.count)]
      switch random.below(10) {
      case 0:
        items.append("x\(n)")
        cluster.op(node, c, "o\(n)", #"{"kind":"insert","list":"L","item":"x\#(n)","after":"\#(other)","fields":{}}"#)
      case 1: cluster.op(node, c, "o\(n)", #"{"kind":"delete","item":"\#(item)"}"#)
      case 2: cluster.op(node, c, "o\(n)", #"{"kind":"restore","item":"\#(item)","list":"L","after":"\#(other)"}"#)
      default: cluster.op(node, c, "o\(n)", move(item, after: other))
      }
      for _ in 0..<random.below(4) {
        let i = random.below(3)
        switch random.below(4) {
        case 0: cluster.executeAppends(i, count: 1 + random.below(3))
        case 1: cluster.deliverReplies(i, count: 1 + random.below(3))
        case 2: cluster.deliverStream(i, limit: 1 + random.below(4))
        default: cluster.answerReads(i)
        }
      }
    }
    cluster.settle()
    let last = cluster.log.rooms["r"]!.seq
    #expect(last > 60, "seed \(seed)")
    #expect(cluster.log.staleRefusals > 0, "seed \(seed)")
    // Every op was answered: applied (once, in the log) or rejected to its sender.
    var answered: [String] = cluster.log.rooms["r"]!.entries.compactMap { try? OpRecord(payload: $0.payload).id }
    for (node, c) in clients {
      answered += cluster.nodes[node].frames(c, "rejected").compactMap { $0["id"]?.stringValue }
    }
    #expect(answered.filter { $0.hasPrefix("o") }.sorted() == (0..<240).map { "o\($0)" }.sorted(), "seed \(seed)")
    #expect(cluster.nodes.allSatisfy { $0.registry.room("r")?.seq == last })
    let fresh = try cluster.freshBoard()
    for i in 0..<3 { #expect(cluster.board(i) == fresh, "node \(i), seed \(seed)") }
    // Every snapshot of a seq is the same board on every node that took it, byte for byte.
    var bySeq: [UInt64: [UInt8]] = [:]
    for node in cluster.nodes {
      for snapshot in node.snapshots {
        #expect(snapshot.seq % 5 == 0)
        let bytes = try normalized(snapshot.bytes)
        if let other = bySeq[snapshot.seq] { #expect(other == bytes, "seq \(snapshot.seq), seed \(seed)") }
        bySeq[snapshot.seq] = bytes
      }
    }
    #expect(bySeq.count > 10)
    // And every replica, compacted now, holds the same bytes.
    let finals = try cluster.nodes.map { try normalized(try #require($0.registry.room("r")).board.snapshot()) }
    #expect(Set(finals).count == 1, "seed \(seed)")
    try loadsFromEverySnapshot(cluster, snapshots: bySeq, seed: seed)
    // What a backup does (`ClusterBackup.storedRoom`): the log from op 1 through the shared rule.
    var replay = CRDTRoomBoard(replica: ReplicaID(97))
    for entry in cluster.log.rooms["r"]!.entries {
      let record = try OpRecord(payload: entry.payload)
      _ = try replay.applyLogged(record.logged)
      if RoomNode.compacts(after: record, seq: entry.seq, every: 5) { replay.compact() }
    }
    #expect(replay.boardJSON() == fresh, "seed \(seed)")
    #expect(try normalized(replay.snapshot()) == finals[0], "seed \(seed)")
  }

  /// Any snapshot is a state of the history: the room loaded from it and the log after it, or from
  /// op 1 without one, is the same board at every seq (what `boardAt` and the history rebuild).
  private func loadsFromEverySnapshot(_ cluster: ClusterHarness, snapshots: [UInt64: [UInt8]], seed: UInt64) throws {
    let entries = cluster.log.rooms["r"]!.entries.map(\.logEntry)
    var load = RoomLoad(room: "r", boards: CRDTRoomBoard.factory(replica: ReplicaID(98)), limits: cluster.limits)
    load.node = "check"
    load.compactEvery = cluster.compactEvery
    func board(base: UInt64, through: UInt64) throws -> JSONValue {
      let snapshot = base == 0 ? nil : cluster.nodes.lazy.compactMap { $0.snapshots.first { $0.seq == base } }.first
      let history = RoomHistory(
        snapshot: snapshot, remembered: [], after: entries.filter { $0.seq > base && $0.seq <= through },
        first: entries.first)
      return try load.prepare(history).boardJSON()
    }
    let last = entries.last!.seq
    for base in snapshots.keys.sorted() {
      for through in [base, min(last, base + 3), min(last, base + 7), last] {
        #expect(
          try board(base: base, through: through) == board(base: 0, through: through), "\(base)…\(through), \(seed)")
      }
    }
  }
}
