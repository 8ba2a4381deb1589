import ReorderCRDT
import Testing

@testable import ReorderRooms

@Suite("Cluster mode: snapshots")
struct ClusterSnapshotTests {
  @Test("A room in cluster mode snapshots without compacting (other replicas' ops may name what compaction drops)")
  func snapshotsAreNotCompacted() throws {
    var limits = RoomLimits()
    limits.snapshotEvery = 4
    let cluster = ClusterHarness(nodes: 2, limits: limits)
    let a = cluster.join(0, 1)
    seedCluster(cluster, from: a)
    let b = cluster.join(1, 2, client: "cb")
    cluster.settle()
    for n in 0..<8 {
      let (node, c) = n % 2 == 0 ? (0, a) : (1, b)
      cluster.op(node, c, "m\(n)", #"{"kind":"move","item":"a","list":"L","after":"\#(n % 2 == 0 ? "f" : "c")"}"#)
      cluster.settle()
    }
    let snapshot = try #require(cluster.log.rooms["r"]?.snapshot)
    #expect(snapshot.seq >= 8)
    // The moves' tombstones are still there: compacting the same board drops them.
    var board = try CRDTRoomBoard.factory(replica: ReplicaID(99)).restore(snapshot.bytes)
    #expect(board.compactedSnapshot().count < snapshot.bytes.count)
    // And the replicas still agree with a fresh load.
    #expect(cluster.board(0) == cluster.board(1))
    #expect(cluster.board(0) == (try cluster.freshBoard()))
  }
}
