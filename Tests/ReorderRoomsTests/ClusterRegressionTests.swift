import Testing

@testable import ReorderRooms

/// Failures the randomized cluster run found, each as a small named case.
@Suite("Cluster mode: regressions")
struct ClusterRegressionTests {
  /// A node restarted on a log trimmed past op 1, with a snapshot at seq 4.
  func restartedOnTrimmedLog() -> (ClusterHarness, ConnectionHandle) {
    var limits = RoomLimits()
    limits.snapshotEvery = 4
    let cluster = ClusterHarness(nodes: 1, limits: limits)
    let a = cluster.join(0, 1)
    seedCluster(cluster, from: a)
    cluster.log.trim(room: "r", keep: 3)
    cluster.restart(0)
    return (cluster, cluster.join(0, 2, client: "c1"))
  }

  @Test("Two appends made before a room learned its epoch are both retried, the room kept")
  func appendsInFlightBeforeTheEpochIsKnown() {
    let (cluster, c) = restartedOnTrimmedLog()
    #expect(cluster.nodes[0].registry.room("r")!.epoch == "")
    cluster.op(0, c, "e1", #"{"kind":"move","item":"a","list":"L","after":"f"}"#)
    cluster.op(0, c, "e2", #"{"kind":"move","item":"b","list":"L","after":"a"}"#)
    cluster.executeAppends(0)
    let epoch = cluster.log.rooms["r"]!.epoch!
    #expect(cluster.nodes[0].replies.map(\.result) == [.failure(.epoch(epoch)), .failure(.epoch(epoch))])
    cluster.settle()
    #expect(cluster.nodes[0].closed.isEmpty)
    #expect(cluster.nodes[0].applied(c).compactMap { $0["id"]?.stringValue } == ["e1", "e2"])
    #expect(cluster.nodes[0].registry.room("r")!.epoch == epoch)
  }

  @Test("An old re-sent op id whose read fails while the log is down is rejected unavailable, not closed")
  func oldResendWhileTheLogIsDown() {
    let (cluster, c) = restartedOnTrimmedLog()
    cluster.log.available = false
    // seed-b (seq 3) is remembered by key, but its frame is not kept after a load.
    cluster.op(0, c, "seed-b", #"{"kind":"insert","list":"L","item":"b","after":"a","fields":{}}"#)
    cluster.settle()
    #expect(cluster.nodes[0].closed.isEmpty)
    #expect(cluster.nodes[0].frames(c, "rejected").map { $0["code"] } == [.string("unavailable")])
    cluster.log.available = true
    cluster.op(0, c, "seed-b", #"{"kind":"insert","list":"L","item":"b","after":"a","fields":{}}"#)
    cluster.settle()
    #expect(cluster.nodes[0].applied(c).map { $0["seq"] } == [.number(3)])
  }

  @Test("Ids a node generates stay unique after the room is unloaded and loaded again in the same process")
  func generatedIDsAfterReload() {
    let cluster = ClusterHarness(nodes: 1)
    let a = cluster.join(0, 1)
    cluster.op(0, a, "l", #"{"kind":"createList","list":"L","title":"L","layout":"list"}"#)
    cluster.settle()
    func insertedIDs() -> [String] {
      cluster.nodes[0].applied(a).compactMap { frame in
        frame["op"]?["kind"] == .string("insert") ? frame["op"]?["item"]?.stringValue : nil
      }
    }
    for n in 1...3 {
      cluster.op(0, a, "i\(n)", #"{"kind":"insert","list":"L","fields":{}}"#)
      cluster.settle()
    }
    let first = insertedIDs()
    #expect(first.count == 3)
    // Everyone leaves; the room unloads once idle, and the next join loads it again.
    cluster.leave(0, a)
    cluster.tick(RoomLimits().roomIdleSeconds + 1)
    cluster.settle()
    #expect(cluster.nodes[0].registry.room("r") == nil)
    let b = cluster.join(0, 2)
    cluster.settle()
    for n in 4...6 {
      cluster.op(0, b, "i\(n)", #"{"kind":"insert","list":"L","fields":{}}"#)
      cluster.settle()
    }
    let second = cluster.nodes[0].applied(b).compactMap { frame in
      frame["op"]?["kind"] == .string("insert") ? frame["op"]?["item"]?.stringValue : nil
    }
    #expect(second.count == 3, "each insert applied with an id of its own")
    #expect(Set(first).isDisjoint(with: second), "the node generated \(first) and then \(second)")
  }
}
