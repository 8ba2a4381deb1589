import Foundation
import ReorderCRDT
import ReorderRedis
import ReorderRooms
import ReorderTransport
import TestRandom
import TestSupport
import Testing

@testable import ReorderServer

/// Compaction in cluster mode over real sockets and a real `redis-server`: two nodes making moves
/// across compaction boundaries (every 1,000 seqs here), a third node
/// loading the room late from the lease holder's compacted snapshot.
@Suite("Cluster mode: compaction end to end", .serialized)
struct ClusterCompactionEndToEndTests {
  @Test("Ops across boundaries from two nodes; a late node loads the compacted snapshot; all boards agree; since")
  func compactsAcrossNodes() throws {
    let redis = try RedisServer()
    defer { redis.stop() }
    let url = "redis://127.0.0.1:\(redis.port)"
    let configure: (inout ServerConfiguration) -> Void = {
      $0.redis = url
      $0.maxOpsPerSecond = 100_000
      $0.compactEvery = 1_000
    }
    let a = try TestServer(configure: configure)
    let b = try TestServer(configure: configure)
    defer {
      a.server.shutdown()
      b.server.shutdown()
    }
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let items = (0..<20).map { "i\($0)" }
    let onA = try RoomClient.join(port: a.port, client: "a", context: context)
    try ClusterPair.seed(onA, items: items)
    let onB = try RoomClient.join(port: b.port, client: "b", context: context)
    // 2 × 1,150 moves, 50 at a time from each node at once: each round's ops are made at the same
    // seq, so in the rounds that cross 1,000 and 2,000 those landing past the boundary are refused
    // stale and made again.
    var random = SplitMix64(seed: 24)
    for round in 0..<23 {
      for (name, client) in [("a", onA), ("b", onB)] {
        for n in 0..<50 {
          let item = items[random.below(items.count)]
          var anchor = items[random.below(items.count)]
          if anchor == item { anchor = items[(items.firstIndex(of: item)! + 1) % items.count] }
          client.op("\(name)\(round).\(n)", Ops.move(item, list: "l", after: anchor))
        }
      }
      for (name, client) in [("a", onA), ("b", onB)] { _ = try client.applied(id: "\(name)\(round).49", timeout: 30) }
    }
    let last: UInt64 = 21 + 2_300
    let connection = try RedisConnection(url: RedisURL(parsing: url))
    defer { connection.close() }
    #expect(try connection.meta(room: "t").seq == last)
    var snapshot: ClusterSnapshot?
    #expect(
      waitUntil(timeout: 20) {
        snapshot = try? connection.snapshot(room: "t")
        return snapshot?.seq == 2_000
      })
    // The lease holder's snapshot is the board compacted at 2,000: compacting it again drops
    // nothing (2,000 moves of tombstones would be kilobytes).
    let bytes = snapshot?.bytes ?? []
    var board = try Board(snapshot: bytes, replica: ReplicaID(1))
    #expect(abs(board.compactedSnapshot().count - bytes.count) < 16)
    #expect(bytes.count < 1_500)
    // Every op refused stale was made again: each id is in the log once.
    let entries = try connection.entries(room: "t", after: 1_999, limit: 400)
    #expect(entries.count == Int(last) - 1_999)
    #expect(Set(entries.map(\.key)).count == entries.count)
    // Each round's 100 ops are made at one seq, so those landing past a boundary were refused.
    #expect((try connection.command("INFO", "errorstats").text ?? "").contains("errorstat_STALE:count="))

    // A third node loads the room late from that snapshot; every node shows the same board.
    let c = try TestServer(configure: configure)
    defer { c.server.shutdown() }
    let fresh = try [a.port, b.port, c.port].map { port in
      try RoomClient.join(port: port, client: "fresh\(port)", context: context)
    }
    #expect(fresh.allSatisfy { $0.welcome["seq"] == .number(Double(last)) })
    let boards: [[String: [String]]] = fresh.map { ClientModel(welcome: $0.welcome).lists }
    #expect(boards[0] == boards[1] && boards[1] == boards[2])
    let shown: [String] = boards[0]["l"] ?? []
    #expect(shown.sorted() == items.sorted())
    // `since` inside what the late node keeps (the ops after its snapshot): the ops; older: the board.
    let epoch = fresh[2].welcome["epoch"]
    let recent = try RoomClient.join(port: c.port, client: "recent", since: last - 100, epoch: epoch, context: context)
    guard case .array(let ops)? = recent.welcome["ops"] else {
      Issue.record("no ops: \(recent.welcome)")
      return
    }
    #expect(ops.count == 100)
    let old = try RoomClient.join(port: c.port, client: "old", since: 1_500, epoch: epoch, context: context)
    #expect(old.welcome["ops"] == nil)
    #expect(ClientModel(welcome: old.welcome).lists == boards[0])
  }
}
