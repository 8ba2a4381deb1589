import Testing

@testable import ReorderRooms

/// A client may send ops back to back, each naming what the one before made, without waiting for
/// `applied`: on one node each is validated after the ones before it applied, and so in cluster
/// mode, where an op is made on the replica before the log has the ones before it.
@Suite("Cluster mode: ops sent back to back")
struct ClusterPipelinedOpsTests {
  func rejected(_ cluster: ClusterHarness, _ i: Int, _ c: ConnectionHandle) -> [String] {
    cluster.nodes[i].frames(c, "rejected").compactMap { $0["id"]?.stringValue }
  }

  @Test("createList, an insert into it and a move of that item, sent at once, all apply in order")
  func dependentOpsApply() throws {
    let cluster = ClusterHarness(nodes: 2)
    let a = cluster.join(0, 1)
    let b = cluster.join(1, 2)
    cluster.settle()
    cluster.op(0, a, "p1", #"{"kind":"createList","list":"N","title":"N","layout":"list"}"#)
    cluster.op(0, a, "p2", #"{"kind":"insert","list":"N","item":"x","after":null,"fields":{"title":"x"}}"#)
    cluster.op(0, a, "p3", #"{"kind":"insert","list":"N","item":"y","after":"x","fields":{"title":"y"}}"#)
    cluster.op(0, a, "p4", #"{"kind":"move","item":"x","list":"N","after":"y"}"#)
    cluster.settle()
    #expect(rejected(cluster, 0, a) == [])
    let ids = cluster.nodes[0].applied(a).compactMap { $0["id"]?.stringValue }
    #expect(ids == ["p1", "p2", "p3", "p4"])
    #expect(cluster.nodes[1].applied(b).compactMap { $0["id"]?.stringValue } == ids)
    let list = cluster.board(0)?["lists"]?.arrayItems?.first { $0["id"] == .string("N") }
    #expect((list?["items"]?.arrayItems ?? []).compactMap { $0["id"]?.stringValue } == ["y", "x"])
    #expect(cluster.board(0) == cluster.board(1))
    #expect(try cluster.board(0) == cluster.freshBoard())
  }

  @Test("an op that names nothing that exists is rejected once the ops before it are in, not held")
  func invalidOpIsRejected() throws {
    let cluster = ClusterHarness(nodes: 1)
    let a = cluster.join(0, 1)
    cluster.settle()
    cluster.op(0, a, "p1", #"{"kind":"createList","list":"N","title":"N","layout":"list"}"#)
    cluster.op(0, a, "p2", #"{"kind":"insert","list":"nope","item":"x","after":null,"fields":{}}"#)
    cluster.op(0, a, "p3", #"{"kind":"insert","list":"N","item":"y","after":null,"fields":{}}"#)
    cluster.settle()
    #expect(rejected(cluster, 0, a) == ["p2"])
    #expect(cluster.nodes[0].frames(a, "rejected").first?["code"] == .string("unknown_list"))
    #expect(cluster.nodes[0].applied(a).compactMap { $0["id"]?.stringValue } == ["p1", "p3"])
  }

  @Test("ops that wait for the ones before them are refused unavailable when the log refuses those")
  func waitingOpsFollowAFailedAppend() throws {
    let cluster = ClusterHarness(nodes: 1)
    let a = cluster.join(0, 1)
    cluster.settle()
    cluster.log.available = false
    cluster.op(0, a, "p1", #"{"kind":"createList","list":"N","title":"N","layout":"list"}"#)
    cluster.op(0, a, "p2", #"{"kind":"insert","list":"N","item":"x","after":null,"fields":{}}"#)
    cluster.settle()
    let refused = cluster.nodes[0].frames(a, "rejected")
    #expect(refused.compactMap { $0["id"]?.stringValue } == ["p1", "p2"])
    #expect(refused.allSatisfy { $0["code"] == .string("unavailable") })
    cluster.log.available = true
    cluster.op(0, a, "p1", #"{"kind":"createList","list":"N","title":"N","layout":"list"}"#)
    cluster.op(0, a, "p2", #"{"kind":"insert","list":"N","item":"x","after":null,"fields":{}}"#)
    cluster.settle()
    #expect(cluster.nodes[0].applied(a).compactMap { $0["id"]?.stringValue } == ["p1", "p2"])
  }
}
