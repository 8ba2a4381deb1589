import Foundation
import ReorderRooms
import TestRandom
import TestSupport
import Testing

@testable import ReorderServer
@testable import ReorderStore

/// A room compacts its board when it snapshots, and the ops after the snapshot are made on the
/// compacted board: if that snapshot is not stored, none of them may be.
@Suite("A failed snapshot write, end to end", .serialized)
struct FailedSnapshotTests {
  @Test(
    "After a snapshot write fails, no later op is acknowledged or stored; a restart shows what the client saw, and the room takes ops again"
  )
  func failedSnapshotStopsTheRoom() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let data = directory.path + "/data"
    let every = 20
    let refusedFrom: UInt64 = 40
    let configure: (inout ServerConfiguration) -> Void = {
      $0.snapshotEvery = every
      $0.maxOpsPerSecond = 100_000
    }

    var model: ClientModel
    var seqs: [UInt64] = []
    let sent = 11 + 120
    do {
      let server = try TestServer(data: data, configure: configure)
      failSnapshots(of: server, from: refusedFrom)
      let writer = try RoomClient.join(port: server.port, client: "w")
      model = ClientModel(welcome: writer.welcome)
      writer.op("l", Ops.createList("l"))
      for i in 0..<10 { writer.op("i\(i)", Ops.insert("i\(i)", list: "l", after: i == 0 ? nil : "i\(i - 1)")) }
      // Moves in a small list leave tombstones everywhere, so a move made on the compacted board
      // and replayed onto the uncompacted one can land elsewhere. The ops up to the snapshot that
      // is refused are acknowledged first, so that the snapshot before it is stored.
      var random = SplitMix64(seed: 11)
      func move(_ n: Int) {
        let item = random.below(10)
        let anchor = (item + 1 + random.below(9)) % 10
        writer.op("m\(n)", Ops.move("i\(item)", list: "l", after: random.chance(15) ? nil : "i\(anchor)"))
      }
      func receive(until seq: UInt64) {
        while model.seq < seq, let applied = try? writer.next(type: "applied", timeout: 10) {
          seqs.append(UInt64(applied["seq"]?.numberValue ?? 0))
          model.apply(applied)
        }
      }
      let beforeRefused = Int(refusedFrom) - 1 - 11
      for n in 0..<beforeRefused { move(n) }
      receive(until: refusedFrom - 1)
      #expect(model.seq == refusedFrom - 1)
      for n in beforeRefused..<(sent - 11) { move(n) }
      receive(until: UInt64(sent))
      let closed = writer.waitForClose(timeout: 10)
      #expect(closed?.code == 1011, "the room is dropped when its snapshot is not stored")
      #expect(closed?.reason == "storage failure: full")
      #expect(model.seq <= refusedFrom, "an op after the failed snapshot was acknowledged: \(model.seq)")
      #expect(model.seq >= refusedFrom - 1, "the ops before the snapshot are acknowledged")
      server.server.shutdown()
    }
    #expect(seqs == Array(1...UInt64(seqs.count)), "acknowledged in seq order, without gaps")

    let server = try TestServer(data: data, configure: configure)
    let reader = try RoomClient.join(port: server.port, client: "r")
    #expect(ClientModel(welcome: reader.welcome) == model, "the board after the restart is not what the client saw")
    #expect(try storedSeqs(server, room: "t") == Array(1...model.seq), "only the acknowledged ops are stored")

    // The reloaded room takes ops again (and an op that was never acknowledged applies now).
    reader.op("again", Ops.move("i0", list: "l"))
    let again = try reader.applied(id: "again")
    #expect(again["seq"] == .number(Double(model.seq + 1)))
    let writer = try RoomClient.join(port: server.port, client: "w")
    writer.op("m100", Ops.move("i1", list: "l"))
    #expect(try writer.applied(id: "m100")["seq"] == .number(Double(model.seq + 2)))
  }

  /// Makes every snapshot of the server's rooms at seq `from` or later fail alone (the store's
  /// fault point: the snapshot's write fails while the appends around it are stored), until the
  /// server stops.
  private func failSnapshots(of server: TestServer, from seq: UInt64) {
    let writer = server.server.store.writer
    _ = writer.enqueue(
      .barrier({
        writer.snapshotFault = { _, at in at >= seq ? .diskFull(operation: "save a snapshot (test fault)") : nil }
      }))
    server.server.store.flush()
  }

  /// The seqs of `room`'s stored ops.
  private func storedSeqs(_ server: TestServer, room: String) throws -> [UInt64] {
    try server.server.store.ops(room: room, after: 0, limit: 10_000).map(\.seq)
  }
}
