import ReorderRedis
import TestSupport
import Testing

/// `reorder_append_ops`'s `until` (docs/CLUSTER.md, "Compaction at agreed seqs"): an op whose seq would
/// pass the compaction boundary after the state it was made on is refused, unrecorded.
@Suite("Redis log: appends refused across a compaction boundary")
struct RedisCompactionTests {
  private func op(_ key: String, until: UInt64) -> ClusterAppend {
    ClusterAppend(room: "r", epoch: "e1", key: bytes(key), node: "A", payload: bytes(key), until: until)
  }

  @Test("An op beyond its until is refused STALE with nothing written; its key, sent again, gets its eventual seq")
  func staleThenIdempotent() throws {
    let redis = try RedisFixture()
    // Ops 1…3 made on states before boundary 4 (until 4): 1, 2, 3 fit.
    #expect(
      try redis.connection.append((1...3).map { op("k\($0)", until: 4) }) == [
        .applied(seq: 1), .applied(seq: 2), .applied(seq: 3),
      ])
    // Two more made before 4: the first takes 4, the second would be 5, past its boundary.
    let answers = try redis.connection.append([op("k4", until: 4), op("k5", until: 4)])
    #expect(answers == [.applied(seq: 4), .stale(until: 4)])
    #expect(try redis.connection.meta(room: "r").seq == 4)
    #expect(try redis.connection.entries(room: "r", after: 0).map(\.seq) == [1, 2, 3, 4])
    #expect(try redis.connection.command("HEXISTS", ClusterKeys(room: "r").ids, "k5").integer == 0)
    // Made again after 4 (until 8), under the same key: appended at 5; sent again, known at 5.
    #expect(try redis.connection.append([op("k5", until: 8)]) == [.applied(seq: 5)])
    #expect(try redis.connection.append([op("k5", until: 4)]) == [.known(seq: 5)])
    // No until (0): any seq, as before.
    #expect(try redis.connection.append([op("k6", until: 0)]) == [.applied(seq: 6)])
  }
}
