import Foundation
import ReorderRooms
import ReorderStore
import TestSupport
import Testing

@testable import ReorderServer

/// The op log stops growing: ops older than the windows before the latest snapshot are deleted.
@Suite("Storage that does not grow forever", .serialized)
struct TrimmingTests {
  @Test(
    "50,000 moves with --history-ops 1000: the log holds the window plus one snapshot interval; since inside gets ops, outside the board"
  )
  func trimming() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let data = directory.path + "/data"
    let retained = 10_000  // max(--history-ops 1000, the idempotency window of 10,000 op ids)
    let every = 500
    var lastSeq: UInt64 = 0
    do {
      let server = try InProcessServer(data: data) {
        $0.historyOps = 1_000
        $0.snapshotEvery = every
        $0.maxOpsPerSecond = 1_000_000
      }
      let c = try server.join(client: "mover")
      c.op("l", Ops.createList("l"))
      for i in 0..<20 { c.op("i\(i)", Ops.insert("i\(i)", list: "l")) }
      _ = try c.applied(id: "i19")
      let moves = 50_000
      var sent = 0
      while sent < moves {
        let batch = min(500, moves - sent)
        for n in sent..<(sent + batch) {
          c.op("m\(n)", Ops.move("i\(n % 20)", list: "l", after: "i\((n + 7) % 20)"))
        }
        sent += batch
        lastSeq = UInt64(try c.applied(id: "m\(sent - 1)", timeout: 30)["seq"]?.numberValue ?? 0)
        c.buffer.removeAll()
      }
      c.close()
      server.server.shutdown()
    }
    let store = try Store(path: data)
    defer { store.close() }
    let kept = try store.ops(room: "t", after: 0, limit: 1_000_000)
    #expect(kept.first?.seq == 1, "op 1 (the epoch) stays")
    #expect(kept.count <= 1 + retained + every + 1, "\(kept.count) ops kept of \(lastSeq)")
    #expect(kept.count > retained / 2, "the windows are kept")
    #expect(kept.last?.seq == lastSeq)
    // The snapshot is compacted: its size is the 20 items', not 50,000 moves' worth of tombstones.
    let snapshot = try #require(try store.loadSnapshot(room: "t"))
    #expect(snapshot.bytes.count < 1_000, "a snapshot of 20 items after 50,000 moves: \(snapshot.bytes.count) B")

    try directory.write("keys", String(repeating: "k", count: 40))
    let keyFile = directory.path + "/keys"
    let server = try InProcessServer(data: data) {
      $0.historyOps = 1_000
      $0.apiKeyFile = keyFile
    }
    let gone = try server.get(
      "/api/v1/boards/t/ops?since=5", headers: ["Authorization": "Bearer " + String(repeating: "k", count: 40)])
    #expect(gone.status == 410, "a since the log no longer reaches is 410: \(gone.text)")
    #expect(gone.text.contains("earliest kept"))
    let probe = try server.join(client: "probe")
    let epoch = probe.welcome["epoch"] ?? .null
    probe.close()
    let inside = try server.join(client: "a", since: lastSeq - 500, epoch: epoch)
    guard case .array(let ops)? = inside.welcome["ops"] else {
      Issue.record("a since inside the window got no ops: \(inside.welcome)")
      return
    }
    #expect(ops.count == 500)
    let outside = try server.join(client: "b", since: lastSeq - 5_000, epoch: epoch)
    #expect(outside.welcome["board"] != nil, "a since outside the window gets the full board")
    inside.close()
    outside.close()
  }
}
