import Foundation
import ReorderRedis
import TestSupport
import Testing

@Suite("Redis log: append, idempotency, epoch, ranges, trim")
struct RedisLogTests {
  @Test("Appends get seqs 1, 2, 3, … and the log holds them in that order with node, key and op")
  func appendsInSeqOrder() throws {
    let redis = try RedisFixture()
    let outcomes = try (1...5).map { i in
      try redis.connection.append(
        room: "r", epoch: "e1", key: bytes("k\(i)"), node: "n\(i % 2)", payload: bytes("op\(i)"))
    }
    #expect(outcomes == (1...5).map { .applied(seq: UInt64($0)) })
    let entries = try redis.connection.entries(room: "r", after: 0)
    #expect(
      entries
        == (1...5).map {
          ClusterLogEntry(
            seq: UInt64($0), node: "n\($0 % 2)", key: bytes("k\($0)"), op: bytes("op\($0)"), epoch: "e1")
        })
    #expect(
      try redis.connection.meta(room: "r")
        == ClusterRoomMeta(epoch: "e1", seq: 5, snapshotSeq: 0, trimmedSeq: 0, replicated: 0))
    #expect(
      try redis.connection.command("XRANGE", ClusterKeys(room: "r").log, "-", "+").elements?.first?.elements?.first?
        .text == "1-1")
  }

  @Test("Rooms have seqs of their own")
  func roomsAreIndependent() throws {
    let redis = try RedisFixture()
    #expect(
      try redis.connection.appendSample(room: "a", 1...3) == [.applied(seq: 1), .applied(seq: 2), .applied(seq: 3)])
    #expect(try redis.connection.appendSample(room: "b", 1...1) == [.applied(seq: 1)])
    #expect(try redis.connection.meta(room: "a").seq == 3)
    #expect(
      try redis.connection.meta(room: "nothing") == ClusterRoomMeta(epoch: nil, seq: 0, snapshotSeq: 0, trimmedSeq: 0))
  }

  @Test("The same op key again, from any node, gets the seq it has and adds nothing")
  func idempotentAcrossNodes() throws {
    let redis = try RedisFixture()
    let other = try redis.connect()
    #expect(
      try redis.connection.append(room: "r", epoch: "e1", key: bytes("c-ann:7"), node: "A", payload: [1])
        == .applied(seq: 1))
    #expect(
      try redis.connection.append(room: "r", epoch: "e1", key: bytes("c-bob:1"), node: "A", payload: [2])
        == .applied(seq: 2))
    #expect(try other.append(room: "r", epoch: "e1", key: bytes("c-ann:7"), node: "B", payload: [9]) == .known(seq: 1))
    #expect(
      try redis.connection.append(room: "r", epoch: "e1", key: bytes("c-ann:7"), node: "A", payload: [1])
        == .known(seq: 1))
    let entries = try other.entries(room: "r", after: 0)
    #expect(entries.map(\.seq) == [1, 2])
    #expect(entries[0].op == [1] && entries[0].node == "A")
  }

  @Test("An op of another epoch is refused with the room's epoch; the first op sets the epoch")
  func epochMismatch() throws {
    let redis = try RedisFixture()
    #expect(
      try redis.connection.append(room: "r", epoch: "e1", key: bytes("a"), node: "A", payload: [1]) == .applied(seq: 1))
    #expect(
      try redis.connection.append(room: "r", epoch: "e2", key: bytes("b"), node: "B", payload: [2])
        == .epochMismatch(current: "e1"))
    #expect(
      try redis.connection.append(room: "r", epoch: "e2", key: bytes("a"), node: "B", payload: [2])
        == .epochMismatch(current: "e1"))
    #expect(
      try redis.connection.meta(room: "r")
        == ClusterRoomMeta(epoch: "e1", seq: 1, snapshotSeq: 0, trimmedSeq: 0, replicated: 0))
    #expect(try redis.connection.entries(room: "r", after: 0).count == 1)
  }

  @Test("Nodes appending to one room at once get gap-free seqs, each op exactly once")
  func concurrentNodesGetGapFreeSeqs() throws {
    let redis = try RedisFixture()
    let nodes = try (0..<4).map { _ in try redis.connect() }
    let seqs = SharedValue<[String: UInt64]>([:])
    DispatchQueue.concurrentPerform(iterations: nodes.count) { node in
      for batch in 0..<25 {
        let ops = (0..<10).map { i in
          ClusterAppend(
            room: "r", epoch: "e1", key: bytes("n\(node)-\(batch)-\(i)"), node: "n\(node)", payload: [UInt8(node)])
        }
        guard let outcomes = try? nodes[node].append(ops) else { return }
        for (op, outcome) in zip(ops, outcomes) {
          if case .applied(let seq) = outcome { seqs.update { $0[String(decoding: op.key, as: UTF8.self)] = seq } }
        }
      }
    }
    #expect(seqs.value.count == 1_000)
    #expect(Set(seqs.value.values) == Set(1...1_000))
    let entries = try redis.connection.entries(room: "r", after: 0, limit: 2_000)
    #expect(entries.map(\.seq) == Array(1...1_000))
    #expect(entries.allSatisfy { seqs.value[String(decoding: $0.key, as: UTF8.self)] == $0.seq })
  }

  @Test("A pipelined batch of appends is one round trip and keeps its order")
  func pipelinedAppends() throws {
    let redis = try RedisFixture()
    let before = redis.metrics.snapshot.commandSeconds.count
    let outcomes = try redis.connection.appendSample(room: "r", 1...100)
    #expect(redis.metrics.snapshot.commandSeconds.count == before + 1)
    #expect(outcomes == (1...100).map { .applied(seq: UInt64($0)) })
    let mixed = try redis.connection.append([
      ClusterAppend(room: "r", epoch: "e1", key: bytes("k5"), node: "n", payload: []),
      ClusterAppend(room: "r", epoch: "e9", key: bytes("new"), node: "n", payload: []),
      ClusterAppend(room: "r", epoch: "e1", key: bytes("new"), node: "n", payload: []),
    ])
    #expect(mixed == [.known(seq: 5), .epochMismatch(current: "e1"), .applied(seq: 101)])
  }

  @Test("reorder_append, one op per call (nodes of the previous release), answers and logs as reorder_append_ops")
  func singleOpFunctionAgrees() throws {
    let redis = try RedisFixture()
    _ = try redis.connection.appendSample(room: "r", 1...2)
    let keys = ClusterKeys(room: "r")
    func single(_ epoch: String, _ key: String, until: Int = 0) throws -> RedisReply {
      try redis.connection.pipeline([
        [
          "FCALL", ClusterFunctions.append, 3, keys.log, keys.meta, keys.ids, epoch, key, "old", "op", "1", until,
          keys.appends,
        ]
      ])[0]
    }
    #expect(try single("e1", "k1").elements?.map { $0.integer.map(String.init) ?? $0.text ?? "" } == ["1", "known"])
    #expect(try single("e1", "fresh").elements?.first?.integer == 3)
    #expect(try single("e9", "other").description.contains("EPOCH e1"))
    #expect(try single("e1", "late", until: 3).description.contains("STALE 3"))
    #expect(
      try redis.connection.append([ClusterAppend(room: "r", epoch: "e1", key: bytes("next"), node: "n", payload: [])])
        == [.applied(seq: 4)])
    #expect(try redis.connection.meta(room: "r").seq == 4)
    #expect(try redis.connection.entries(room: "r", after: 2).map(\.node) == ["old", "n"])
  }

  @Test("A library without reorder_append_ops (a node of the previous release loaded it) is loaded again")
  func missingFunctionIsLoadedAgain() throws {
    let redis = try RedisFixture()
    _ = try redis.connection.appendSample(room: "r", 1...1)
    try redis.connection.command("FUNCTION", "DELETE", ClusterFunctions.library)
    #expect(
      try redis.connection.append(room: "r", epoch: "e1", key: bytes("after"), node: "n", payload: [])
        == .applied(seq: 2))
  }

  @Test("One call of 1,200 ops of a room: seqs in order, a key repeated in the call answered known, every key kept")
  func largeCallOfOneRoom() throws {
    let redis = try RedisFixture()
    var ops = (1...1_200).map { ClusterAppend(room: "r", epoch: "e1", key: bytes("k\($0)"), node: "n", payload: [1]) }
    ops.insert(ClusterAppend(room: "r", epoch: "e1", key: bytes("k3"), node: "n", payload: [2]), at: 10)
    let outcomes = try redis.connection.append(ops)
    #expect(outcomes[10] == .known(seq: 3))
    #expect(
      outcomes.enumerated().filter { $0.offset != 10 }.map(\.element) == (1...1_200).map { .applied(seq: UInt64($0)) })
    #expect(try redis.connection.meta(room: "r").seq == 1_200)
    #expect(
      try redis.connection.append(room: "r", epoch: "e1", key: bytes("k1200"), node: "n", payload: [])
        == .known(seq: 1_200))
    #expect(
      try redis.connection.append(room: "r", epoch: "e1", key: bytes("k1"), node: "n", payload: []) == .known(seq: 1))
  }

  @Test("A range after a seq fills a gap: the next entries in order, at most the limit")
  func rangeFillsAGap() throws {
    let redis = try RedisFixture()
    _ = try redis.connection.appendSample(room: "r", 1...10)
    #expect(try redis.connection.entries(room: "r", after: 4, limit: 3).map(\.seq) == [5, 6, 7])
    #expect(try redis.connection.entries(room: "r", after: 7).map(\.seq) == [8, 9, 10])
    #expect(try redis.connection.entries(room: "r", after: 10).isEmpty)
    #expect(try redis.connection.entries(room: "none", after: 0).isEmpty)
  }

  @Test("Keys and payloads with zero bytes and every byte value come back exactly")
  func binarySafe() throws {
    let redis = try RedisFixture()
    let key: [UInt8] = [0, 0x0A, 0xFF, 0, 0x0D]
    let payload = (0..<1024).map { UInt8(truncatingIfNeeded: $0 * 7) } + [0, 0]
    #expect(
      try redis.connection.append(room: "r", epoch: "e1", key: key, node: "n", payload: payload) == .applied(seq: 1))
    #expect(try redis.connection.append(room: "r", epoch: "e1", key: [], node: "n", payload: []) == .applied(seq: 2))
    #expect(try redis.connection.append(room: "r", epoch: "e1", key: key, node: "n", payload: [1]) == .known(seq: 1))
    #expect(
      try redis.connection.append(room: "r", epoch: "e", key: [9], node: "n", payload: [1])
        == .epochMismatch(current: "e1"))
    let entries = try redis.connection.entries(room: "r", after: 0)
    #expect(
      entries == [
        ClusterLogEntry(seq: 1, node: "n", key: key, op: payload, epoch: "e1"),
        ClusterLogEntry(seq: 2, node: "n", key: [], op: [], epoch: "e1"),
      ])
    #expect(try redis.connection.putSnapshot(room: "r", seq: 2, bytes: payload))
    #expect(try redis.connection.snapshot(room: "r") == ClusterSnapshot(seq: 2, bytes: payload))
  }

  @Test("Trimming removes the entries below a seq and their op ids, in bounded steps")
  func trimRemovesEntriesAndIds() throws {
    let redis = try RedisFixture()
    _ = try redis.connection.appendSample(room: "r", 1...20)
    var steps: [ClusterTrim] = []
    repeat {
      steps.append(try redis.connection.trim(room: "r", keepFrom: 11, count: 4))
    } while steps.last!.removed == 4
    #expect(
      steps == [
        ClusterTrim(removed: 4, trimmedSeq: 4), ClusterTrim(removed: 4, trimmedSeq: 8),
        ClusterTrim(removed: 2, trimmedSeq: 10),
      ])
    #expect(try redis.connection.entries(room: "r", after: 0).map(\.seq) == Array(11...20))
    #expect(try redis.connection.command("HLEN", ClusterKeys(room: "r").ids).integer == 10)
    #expect(
      try redis.connection.meta(room: "r")
        == ClusterRoomMeta(epoch: "e1", seq: 20, snapshotSeq: 0, trimmedSeq: 10, replicated: 0))
    // Keys still in the window are known; a trimmed key is beyond the window and is new again.
    #expect(try redis.connection.appendSample(room: "r", 15...15) == [.known(seq: 15)])
    #expect(try redis.connection.appendSample(room: "r", 3...3) == [.applied(seq: 21)])
    #expect(try redis.connection.trim(room: "r", keepFrom: 5, count: 100) == ClusterTrim(removed: 0, trimmedSeq: 10))
    #expect(try redis.connection.trim(room: "r", keepFrom: 1, count: 100) == ClusterTrim(removed: 0, trimmedSeq: 10))
  }

  @Test("One trim of more op ids than one HDEL takes removes them all")
  func trimManyIds() throws {
    let redis = try RedisFixture()
    _ = try redis.connection.appendSample(room: "r", 1...1_200)
    #expect(
      try redis.connection.trim(room: "r", keepFrom: 1_101, count: 1_200)
        == ClusterTrim(removed: 1_100, trimmedSeq: 1_100))
    #expect(try redis.connection.command("HLEN", ClusterKeys(room: "r").ids).integer == 100)
    #expect(try redis.connection.appendSample(room: "r", 1_101...1_101) == [.known(seq: 1_101)])
  }

  @Test("Trimming everything keeps the seq going: the next op is the next seq")
  func trimEverything() throws {
    let redis = try RedisFixture()
    _ = try redis.connection.appendSample(room: "r", 1...5)
    #expect(try redis.connection.trim(room: "r", keepFrom: 6, count: 100) == ClusterTrim(removed: 5, trimmedSeq: 5))
    #expect(try redis.connection.entries(room: "r", after: 0).isEmpty)
    #expect(try redis.connection.appendSample(room: "r", 6...6) == [.applied(seq: 6)])
  }

  @Test("Deleting a room removes every key; the next op starts it again in its own epoch")
  func deleteRoom() throws {
    let redis = try RedisFixture()
    _ = try redis.connection.appendSample(room: "r", 1...3)
    _ = try redis.connection.appendSample(room: "kept", 1...1)
    try redis.connection.putSnapshot(room: "r", seq: 3, bytes: [1])
    #expect(try redis.connection.acquireLease(room: "r", node: "A", milliseconds: 60_000))
    try redis.connection.putRoster(
      room: "r", node: "A", [ClusterRosterEntry(session: "s", peer: "{}")], expiresAt: 9_000)
    #expect(try redis.connection.deleteRoom("r"))
    #expect(try !redis.connection.deleteRoom("r"))
    #expect(try redis.connection.command("KEYS", "reorder:{r}:*").elements == [])
    #expect(try redis.connection.meta(room: "r").epoch == nil)
    #expect(
      try redis.connection.append(room: "r", epoch: "e2", key: bytes("k1"), node: "n", payload: []) == .applied(seq: 1))
    #expect(try redis.connection.meta(room: "kept").seq == 1)
  }
}
