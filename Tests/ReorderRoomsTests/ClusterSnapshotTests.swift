import ReorderCRDT
import Testing

@testable import ReorderRooms

@Suite("Cluster mode: snapshots")
struct ClusterSnapshotTests {
  /// Two nodes snapshotting every 4 ops, room `r` seeded from node 0's member `a`, `b` on node 1.
  private func twoNodes() -> (ClusterHarness, ConnectionHandle, ConnectionHandle) {
    var limits = RoomLimits()
    limits.snapshotEvery = 4
    let cluster = ClusterHarness(nodes: 2, limits: limits)
    let a = cluster.join(0, 1)
    seedCluster(cluster, from: a)
    let b = cluster.join(1, 2, client: "cb")
    cluster.settle()
    return (cluster, a, b)
  }

  @Test("A room in cluster mode snapshots at compaction boundaries, right after compacting")
  func snapshotsAreCompacted() throws {
    let (cluster, a, b) = twoNodes()
    for n in 0..<8 {
      let (node, c) = n % 2 == 0 ? (0, a) : (1, b)
      cluster.op(node, c, "m\(n)", #"{"kind":"move","item":"a","list":"L","after":"\#(n % 2 == 0 ? "f" : "c")"}"#)
      cluster.settle()
    }
    let snapshot = try #require(cluster.log.rooms["r"]?.snapshot)
    #expect(snapshot.seq == 12)
    // Compacting the stored board again (as its writer, replica 10 or 11) changes no byte: the
    // moves' tombstones are gone.
    let writers = try cluster.nodes.map { node in
      var board = try CRDTRoomBoard.factory(replica: ReplicaID(node.replica)).restore(snapshot.bytes)
      return board.compactedSnapshot() == snapshot.bytes
    }
    #expect(writers.contains(true))
    // And the replicas still agree with a fresh load.
    #expect(cluster.board(0) == cluster.board(1))
    #expect(cluster.board(0) == (try cluster.freshBoard()))
  }
}
