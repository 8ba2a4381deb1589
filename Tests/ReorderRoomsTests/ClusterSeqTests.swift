import Testing

@testable import ReorderRooms

/// A list `L` with items a…f, made from node 0 and delivered everywhere.
func seedCluster(_ cluster: ClusterHarness, from c: ConnectionHandle) {
  cluster.op(0, c, "seed-l", #"{"kind":"createList","list":"L","title":"L","layout":"list"}"#)
  cluster.settle()
  var previous = "null"
  for item in ["a", "b", "c", "d", "e", "f"] {
    cluster.op(
      0, c, "seed-\(item)",
      #"{"kind":"insert","list":"L","item":"\#(item)","after":\#(previous),"fields":{"title":"\#(item)"}}"#)
    previous = "\"\(item)\""
    cluster.settle()
  }
}

/// The order of list `L` on a node.
func order(_ board: JSONValue?) -> [String] {
  (board?["lists"]?.arrayItems?.first { $0["id"] == .string("L") }?["items"]?.arrayItems ?? []).compactMap {
    $0["id"]?.stringValue
  }
}

@Suite("Cluster mode: replicas and seq order")
struct ClusterSeqTests {
  @Test("Clients on different nodes get the same applied seq order and identical boards")
  func sameOrderEverywhere() throws {
    let cluster = ClusterHarness(nodes: 2)
    let a = cluster.join(0, 1)
    let b = cluster.join(1, 2)
    cluster.settle()
    seedCluster(cluster, from: a)
    // Moves from both nodes, made before either node hears of the other's.
    cluster.op(0, a, "m1", #"{"kind":"move","item":"a","list":"L","after":"c"}"#)
    cluster.op(1, b, "m2", #"{"kind":"move","item":"f","list":"L","after":null}"#)
    cluster.op(0, a, "m3", #"{"kind":"move","item":"d","list":"L","after":"e"}"#)
    cluster.op(1, b, "m4", #"{"kind":"set","item":"b","field":"title","value":"B"}"#)
    cluster.executeAppends(1)
    cluster.executeAppends(0)
    cluster.settle()
    let seen = cluster.nodes[0].applied(a).map { "\($0["seq"]!) \($0["id"]!) \($0["op"]!)" }
    #expect(seen == cluster.nodes[1].applied(b).map { "\($0["seq"]!) \($0["id"]!) \($0["op"]!)" })
    #expect(seen.count == 11)
    #expect(cluster.nodes[0].applied(a).map { $0["seq"]!.numberValue! } == (1...11).map(Double.init))
    #expect(cluster.board(0) == cluster.board(1))
    #expect(try cluster.board(0) == cluster.freshBoard())
    #expect(order(cluster.board(0)) == ["b", "c", "a", "e", "d", "f"])
    let model = ClientBoardModel.from(frames: cluster.nodes[1].inbox[b]!)!
    #expect(model.sameBoard(as: ClientBoardModel(board: try cluster.freshBoard())))
  }

  @Test("Concurrent moves of one item from two nodes end in one place, the same on both")
  func concurrentMovesConverge() throws {
    let cluster = ClusterHarness(nodes: 2)
    let a = cluster.join(0, 1)
    let b = cluster.join(1, 2)
    seedCluster(cluster, from: a)
    cluster.op(0, a, "x", #"{"kind":"move","item":"c","list":"L","after":"e"}"#)
    cluster.op(1, b, "y", #"{"kind":"move","item":"c","list":"L","after":null}"#)
    // B's op reaches the log first; A's was made on a replica that had not seen it.
    cluster.executeAppends(1)
    cluster.executeAppends(0)
    cluster.settle()
    let final = order(cluster.board(0))
    #expect(final.filter { $0 == "c" }.count == 1)
    #expect(final.count == 6)
    #expect(cluster.board(0) == cluster.board(1))
    #expect(try cluster.board(1) == cluster.freshBoard())
    // Both clients end with the board the nodes hold.
    for (i, c) in [(0, a), (1, b)] {
      let model = ClientBoardModel.from(frames: cluster.nodes[i].inbox[c]!)!
      #expect(model.sameBoard(as: ClientBoardModel(board: try cluster.freshBoard())))
      #expect(cluster.nodes[i].frames(c, "rejected").isEmpty)
    }
  }

  @Test("The same op id re-sent to another node gets the same seq and is applied once")
  func resendOnAnotherNode() throws {
    let cluster = ClusterHarness(nodes: 2)
    let a = cluster.join(0, 1, client: "ann")
    let watcher = cluster.join(1, 9)
    seedCluster(cluster, from: a)
    cluster.op(0, a, "k1", #"{"kind":"move","item":"a","list":"L","after":"f"}"#)
    cluster.executeAppends(0)
    // Node A's reply never arrives (the client loses its connection); the client reconnects to
    // B, which has not yet read the entry from the log either, and re-sends its pending op.
    cluster.leave(0, a)
    cluster.nodes[0].replies = []
    let again = cluster.join(1, 2, client: "ann")
    cluster.op(1, again, "k1", #"{"kind":"move","item":"a","list":"L","after":"f"}"#)
    cluster.executeAppends(1)
    #expect(cluster.log.rooms["r"]!.entries.count == 8)
    cluster.settle()
    #expect(cluster.log.rooms["r"]!.entries.count == 8)
    let acks = cluster.nodes[1].applied(again).filter { $0["id"] == .string("k1") }
    #expect(acks.count == 1)
    #expect(acks.first?["seq"] == .number(8))
    #expect(cluster.nodes[1].applied(watcher).filter { $0["id"] == .string("k1") }.count == 1)
    #expect(order(cluster.board(1)) == ["b", "c", "d", "e", "f", "a"])
    // A third re-send, now that B has applied it: the same applied again, to the sender only.
    cluster.op(1, again, "k1", #"{"kind":"move","item":"a","list":"L","after":"f"}"#)
    cluster.settle()
    let later = cluster.nodes[1].applied(again).filter { $0["id"] == .string("k1") }
    #expect(later.count == 2 && later[1] == later[0])
    #expect(cluster.nodes[1].registry.room("r")!.seq == 8)
  }

  @Test("Entries after a gap wait while the gap is read; duplicates are ignored")
  func gapsAreReadAndDuplicatesIgnored() throws {
    let cluster = ClusterHarness(nodes: 2)
    let a = cluster.join(0, 1)
    let b = cluster.join(1, 2)
    seedCluster(cluster, from: a)
    for n in 1...3 {
      cluster.op(0, a, "g\(n)", #"{"kind":"move","item":"a","list":"L","after":"\#(["b", "c", "d"][n - 1])"}"#)
    }
    cluster.executeAppends(0)
    // The stream hands B entry 10 before 8 and 9, then 8 twice.
    let entries = cluster.log.entries(room: "r", after: 7)
    #expect(entries.map(\.seq) == [8, 9, 10])
    cluster.perform(1, cluster.nodes[1].registry.logged(room: "r", entries: [entries[2]], now: cluster.now))
    #expect(cluster.nodes[1].reads.map { "\($0.after)-\($0.through)" } == ["7-9"])
    #expect(cluster.nodes[1].registry.room("r")!.seq == 7)
    cluster.perform(
      1, cluster.nodes[1].registry.logged(room: "r", entries: [entries[0], entries[0]], now: cluster.now))
    #expect(cluster.nodes[1].registry.room("r")!.seq == 8)
    cluster.answerReads(1)
    #expect(cluster.nodes[1].registry.room("r")!.seq == 10)
    cluster.nodes[1].following["r"] = 7
    cluster.settle()
    #expect(cluster.nodes[1].applied(b).map { $0["seq"]!.numberValue! } == (1...10).map(Double.init))
    // Nothing is left waiting: no more reads at later ticks.
    cluster.tick()
    #expect(cluster.nodes[1].reads.isEmpty)
    #expect(cluster.board(0) == cluster.board(1))
  }

  @Test("Log unavailable: ops are rejected unavailable, the room stays; re-sent later, each is applied once")
  func unavailableThenResent() throws {
    let cluster = ClusterHarness(nodes: 2)
    let a = cluster.join(0, 1)
    let b = cluster.join(1, 2)
    seedCluster(cluster, from: a)
    cluster.log.available = false
    cluster.op(0, a, "u1", #"{"kind":"move","item":"a","list":"L","after":"b"}"#)
    cluster.op(1, b, "u2", #"{"kind":"move","item":"f","list":"L","after":null}"#)
    cluster.settle()
    for (i, c, id) in [(0, a, "u1"), (1, b, "u2")] {
      let rejected = cluster.nodes[i].frames(c, "rejected")
      #expect(rejected.map { $0["code"] } == [.string("unavailable")])
      #expect(rejected.first?["id"] == .string(id))
      #expect(cluster.nodes[i].closed.isEmpty)
    }
    #expect(cluster.nodes[0].registry.statistics.opsRejected["unavailable"] == 1)
    // A drag still reaches the node's own members meanwhile.
    let a2 = cluster.join(0, 3)
    cluster.send(0, a, #"{"type":"drag","phase":"start","item":"c","list":"L"}"#)
    cluster.tick()
    #expect(!cluster.nodes[0].frames(a2, "drags").isEmpty)
    cluster.log.available = true
    // One more op whose append reaches the log but whose reply is lost: re-sent, known.
    cluster.op(0, a, "u3", #"{"kind":"move","item":"e","list":"L","after":null}"#)
    cluster.executeAppends(0)
    cluster.nodes[0].replies[0].result = .failure(.unavailable("reply lost"))
    cluster.deliverReplies(0)
    cluster.op(0, a, "u1", #"{"kind":"move","item":"a","list":"L","after":"b"}"#)
    cluster.op(1, b, "u2", #"{"kind":"move","item":"f","list":"L","after":null}"#)
    cluster.op(0, a, "u3", #"{"kind":"move","item":"e","list":"L","after":null}"#)
    cluster.settle()
    let ids = cluster.log.rooms["r"]!.entries.compactMap { try? OpRecord(payload: $0.payload).id }
    #expect(ids.filter { $0.hasPrefix("u") }.sorted() == ["u1", "u2", "u3"])
    for (i, c) in [(0, a), (1, b)] {
      for id in ["u1", "u2", "u3"] {
        #expect(cluster.nodes[i].applied(c).filter { $0["id"] == .string(id) }.count == 1)
      }
    }
    #expect(cluster.board(0) == cluster.board(1))
    #expect(try cluster.board(0) == cluster.freshBoard())
  }

  @Test("A re-send from a new connection while the first append is out gets that append's answer")
  func resendWhileInFlight() throws {
    let cluster = ClusterHarness(nodes: 1)
    let a = cluster.join(0, 1, client: "ann")
    seedCluster(cluster, from: a)
    cluster.op(0, a, "w1", #"{"kind":"move","item":"a","list":"L","after":"c"}"#)
    cluster.leave(0, a)
    let again = cluster.join(0, 2, client: "ann")
    cluster.op(0, again, "w1", #"{"kind":"move","item":"a","list":"L","after":"c"}"#)
    #expect(cluster.nodes[0].appends.count == 1)
    cluster.log.available = false
    cluster.settle()
    #expect(cluster.nodes[0].frames(again, "rejected").map { $0["code"] } == [.string("unavailable")])
    cluster.log.available = true
    cluster.op(0, again, "w1", #"{"kind":"move","item":"a","list":"L","after":"c"}"#)
    cluster.settle()
    #expect(cluster.nodes[0].applied(again).filter { $0["id"] == .string("w1") }.count == 1)
    #expect(order(cluster.board(0)) == ["b", "c", "a", "d", "e", "f"])
  }

  @Test("A room made empty on two nodes takes the epoch of the first op in the log")
  func firstOpSetsTheEpoch() throws {
    let cluster = ClusterHarness(nodes: 2)
    let a = cluster.join(0, 1)
    let b = cluster.join(1, 2)
    let epochA = cluster.nodes[0].frames(a, "welcome")[0]["epoch"]
    #expect(epochA != cluster.nodes[1].frames(b, "welcome")[0]["epoch"])
    cluster.op(0, a, "l1", #"{"kind":"createList","list":"L1","title":"One","layout":"list"}"#)
    cluster.op(1, b, "l2", #"{"kind":"createList","list":"L2","title":"Two","layout":"grid"}"#)
    cluster.executeAppends(0)
    cluster.settle()
    #expect(cluster.log.rooms["r"]!.entries.count == 2)
    #expect(cluster.nodes[1].registry.room("r")!.epoch == cluster.nodes[0].registry.room("r")!.epoch)
    #expect(.string(cluster.nodes[1].registry.room("r")!.epoch) == epochA)
    #expect(cluster.board(0) == cluster.board(1))
    #expect(cluster.nodes[1].closed.isEmpty)
    let late = cluster.join(1, 3)
    #expect(cluster.nodes[1].frames(late, "welcome")[0]["epoch"] == epochA)
  }

  @Test("An epoch mismatch after ops reloads the log's history: the op is refused, the member welcomed again")
  func epochMismatchReloads() throws {
    let cluster = ClusterHarness(nodes: 1)
    let a = cluster.join(0, 1)
    seedCluster(cluster, from: a)
    // The log's history is replaced (the board replaced elsewhere, its epoch not seen here yet).
    cluster.log.rooms["r"] = FakeSharedLog.RoomLog()
    _ = cluster.log.append(
      LogAppend(room: "r", epoch: "other", key: Array("k".utf8), node: "Z", payload: [], ticket: 0))
    cluster.log.rooms["r"] = FakeSharedLog.RoomLog(epoch: "other")
    cluster.op(0, a, "late", #"{"kind":"move","item":"a","list":"L","after":"b"}"#)
    cluster.settle()
    #expect(cluster.nodes[0].closed[a] == nil)
    #expect(cluster.nodes[0].frames(a, "rejected").map { $0["code"] } == [.string("unavailable")])
    let welcomes = cluster.nodes[0].frames(a, "welcome")
    #expect(welcomes.count == 2)
    #expect(welcomes.last?["epoch"] == .string("other"))
    #expect(cluster.nodes[0].registry.room("r")?.epoch == "other")
    #expect(cluster.nodes[0].following["r"] == 0)
  }

  @Test("An op made on a replica whose history was deleted from the log starts no history: the room closes 4404")
  func appendAfterDelete() throws {
    let cluster = ClusterHarness(nodes: 1)
    let a = cluster.join(0, 1)
    seedCluster(cluster, from: a)
    cluster.log.rooms["r"] = nil
    cluster.op(0, a, "late", #"{"kind":"move","item":"a","list":"L","after":"b"}"#)
    cluster.settle()
    #expect(cluster.nodes[0].closed[a]?.code == 4404)
    #expect(cluster.log.rooms["r"]?.epoch == nil)
    #expect(cluster.nodes[0].registry.room("r") == nil)
    #expect(cluster.nodes[0].following["r"] == nil)
  }

  @Test("A node that restarts loads the snapshot and the log after it, and follows from there")
  func restartLoadsSnapshotAndLog() throws {
    var limits = RoomLimits()
    limits.snapshotEvery = 4
    let cluster = ClusterHarness(nodes: 2, limits: limits)
    let a = cluster.join(0, 1)
    seedCluster(cluster, from: a)
    #expect(cluster.log.rooms["r"]!.snapshot?.seq == 4)
    // Trimmed to the 3 entries before the snapshot (the trimmer keeps the op ids' window).
    cluster.log.trim(room: "r", keep: 3)
    #expect(cluster.log.rooms["r"]!.entries.first?.seq == 2)
    cluster.op(0, a, "late", #"{"kind":"move","item":"a","list":"L","after":"f"}"#)
    cluster.settle()
    cluster.restart(1)
    let b = cluster.join(1, 2, client: "c1")
    #expect(cluster.nodes[1].following["r"] == 8)
    #expect(cluster.board(1) == cluster.board(0))
    // A re-send of an op before the snapshot is still known (its id was read back).
    cluster.op(1, b, "seed-a", #"{"kind":"insert","list":"L","item":"a","after":null,"fields":{}}"#)
    cluster.settle()
    #expect(cluster.nodes[1].frames(b, "rejected").isEmpty)
    #expect(cluster.log.rooms["r"]!.entries.last?.seq == 8)
  }
}
