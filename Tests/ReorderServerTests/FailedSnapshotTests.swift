import Foundation
import ReorderRooms
import TestRandom
import TestSupport
import Testing

@testable import ReorderServer
@testable import ReorderStore

/// A room compacts its board when it snapshots, and the ops after the snapshot are made on the
/// compacted board: if that snapshot is not stored, none of them may be.
@Suite("A failed snapshot write (in-process)", .serialized)
struct FailedSnapshotTests {
  /// Snapshots every 20 ops; the one at seq 40 fails.
  static let every = 20
  static let failing: UInt64 = 40
  /// createList, 10 inserts, 120 moves.
  static let sent = 131

  static func configure(_ c: inout ServerConfiguration) {
    c.snapshotEvery = every
    c.maxOpsPerSecond = 100_000
  }

  @Test(
    "A snapshot write that fails alone: no later op is acknowledged or stored; a restart shows what the client saw, and the room takes ops again"
  )
  func snapshotFailingAlone() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let data = directory.path + "/data"
    let seen: Session
    do {
      let server = try InProcessServer(data: data, configure: Self.configure)
      try failSnapshots(of: server, from: Self.failing)
      seen = try Session.run(on: server)
      server.server.shutdown()
    }
    #expect(seen.closed?.code == 1011, "the room is dropped when its snapshot is not stored")
    #expect(seen.closed?.reason == "storage failure: unavailable")
    #expect(seen.model.seq <= Self.failing, "an op after the failed snapshot was acknowledged: \(seen.model.seq)")
    try restartShows(seen, data: data)
  }

  @Test(
    "A snapshot that SQLite refuses with its batch: no op is stored behind the gap; a restart shows what the client saw"
  )
  func snapshotRefusedBySQLite() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let data = directory.path + "/data"
    try execute(
      """
      CREATE TRIGGER refuse_snapshot BEFORE INSERT ON snapshots WHEN NEW.seq = \(Self.failing)
      BEGIN SELECT RAISE(ABORT, 'snapshot refused by the test'); END
      """, in: data)
    let seen: Session
    do {
      let server = try InProcessServer(data: data, configure: Self.configure)
      seen = try Session.run(on: server)
      server.server.shutdown()
    }
    #expect(seen.closed?.code == 1011)
    #expect(seen.closed?.reason == "storage failure: unavailable")
    #expect(seen.model.seq <= Self.failing)
    try execute("DROP TRIGGER refuse_snapshot", in: data)
    try restartShows(seen, data: data)
  }

  /// What one writing client saw: its model of the board, the seqs acknowledged, how it was closed.
  struct Session {
    var model: ClientModel
    var seqs: [UInt64] = []
    var closed: (code: UInt16?, reason: String)?

    /// Sends `sent` ops: up to the one before the failing snapshot, acknowledged first (so the
    /// snapshot before it is stored), then the rest at once; receives until the room closes it.
    static func run(on server: some RoomServer) throws -> Session {
      let writer = try server.join(client: "w")
      var session = Session(model: ClientModel(welcome: writer.welcome))
      writer.op("l", Ops.createList("l"))
      for i in 0..<10 { writer.op("i\(i)", Ops.insert("i\(i)", list: "l", after: i == 0 ? nil : "i\(i - 1)")) }
      // Moves in a small list leave tombstones everywhere: what compaction drops.
      var random = SplitMix64(seed: 11)
      func move(_ n: Int) {
        let item = random.below(10)
        let anchor = (item + 1 + random.below(9)) % 10
        writer.op("m\(n)", Ops.move("i\(item)", list: "l", after: random.chance(15) ? nil : "i\(anchor)"))
      }
      func receive(until seq: UInt64) {
        while session.model.seq < seq, let applied = try? writer.next(type: "applied", timeout: 10) {
          session.seqs.append(UInt64(applied["seq"]?.numberValue ?? 0))
          session.model.apply(applied)
        }
      }
      let beforeFailing = Int(failing) - 1 - 11
      for n in 0..<beforeFailing { move(n) }
      receive(until: failing - 1)
      #expect(session.model.seq == failing - 1)
      for n in beforeFailing..<(sent - 11) { move(n) }
      receive(until: UInt64(sent))
      session.closed = writer.waitForClose(timeout: 10)
      return session
    }
  }

  /// A server started again on `data` shows exactly what the client saw, stores only the ops it
  /// acknowledged, and takes ops again (an op id never acknowledged applies now).
  private func restartShows(_ seen: Session, data: String) throws {
    #expect(seen.seqs == Array(1...UInt64(seen.seqs.count)), "acknowledged in seq order, without gaps")
    let server = try InProcessServer(data: data, configure: Self.configure)
    let reader = try server.join(client: "r")
    #expect(
      ClientModel(welcome: reader.welcome) == seen.model, "the board after the restart is not what the client saw")
    let stored = try #require(server.server.store).ops(room: "t", after: 0, limit: 10_000).map(\.seq)
    #expect(stored == Array(1...seen.model.seq), "only the acknowledged ops are stored")
    reader.op("again", Ops.move("i0", list: "l"))
    #expect(try reader.applied(id: "again")["seq"] == .number(Double(seen.model.seq + 1)))
    let writer = try server.join(client: "w")
    writer.op("m100", Ops.move("i1", list: "l"))
    #expect(try writer.applied(id: "m100")["seq"] == .number(Double(seen.model.seq + 2)))
  }

  /// Makes every snapshot at seq `from` or later fail alone (the store's fault point: its write
  /// fails while the appends around it are stored), until the server stops.
  private func failSnapshots(of server: InProcessServer, from seq: UInt64) throws {
    let store = try #require(server.server.store)
    let writer = store.writer
    _ = writer.enqueue(
      .barrier({
        // Not a full disk: that rebuilds the room instead of dropping it (DiskFullTests).
        writer.snapshotFault = { _, at in
          at >= seq ? .ioError(operation: "save a snapshot", message: "test fault") : nil
        }
      }))
    store.flush()
  }

  /// Runs SQL on the database in `data` (no server running on it).
  private func execute(_ sql: String, in data: String) throws {
    let store = try Store(path: data)
    defer { store.close() }
    let writer = store.writer
    _ = writer.enqueue(
      .barrier({
        do { try writer.connection.execute(sql) } catch { Issue.record("\(sql): \(error)") }
      }))
    store.flush()
  }
}
