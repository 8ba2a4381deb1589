import Foundation
import Testing

@testable import ReorderStore

/// After a failed write of a room, none of its later writes is stored until the room is reopened.
@Suite("A room stopped by a failed write")
struct StoreStoppedRoomTests {
  @Test("A snapshot that SQLite refuses stops the room's later writes until it is reopened; other rooms write on")
  func refusedSnapshotStopsTheRoom() throws {
    let store = try Store(path: ":memory:")
    defer { store.close() }
    let durable = Collector<UInt64>()
    let failures = Collector<StoreError>()
    store.append(room: "r", ops: sampleOps(1...3), onDurable: { durable.add($0) })
    store.execute(
      "CREATE TRIGGER refuse BEFORE INSERT ON snapshots WHEN NEW.seq = 3 BEGIN SELECT RAISE(ABORT, 'refused'); END")
    let saved = Collector<Result<Void, StoreError>>()
    store.saveSnapshot(room: "r", seq: 3, bytes: [1]) { saved.add($0) }
    store.flush()
    guard case .failure(let cause)? = saved.values.first else {
      Issue.record("the refused snapshot was saved")
      return
    }

    // Appended after the failure (a later batch): op 4 was made on the board of the snapshot at 3.
    store.append(room: "r", ops: sampleOps(4...4), onDurable: { durable.add($0) }, onFailure: { failures.add($0) })
    store.append(room: "o", ops: sampleOps(1...1), onDurable: { durable.add($0) })
    store.saveSnapshot(room: "r", seq: 4, bytes: [2]) { saved.add($0) }
    store.flush()
    #expect(failures.values == [.roomStopped(room: "r", cause: cause.description)])
    #expect(failures.values.first?.description.contains("refused until the room is loaded again") == true)
    #expect(durable.values == [3, 1], "room o writes on")
    guard case .failure(.roomStopped)? = saved.values.last else {
      Issue.record("a snapshot of the stopped room was saved: \(saved.values)")
      return
    }
    #expect(try store.ops(room: "r", after: 0, limit: 10).map(\.seq) == [1, 2, 3])
    #expect(try store.loadSnapshot(room: "r") == nil)

    store.reopen(room: "r")
    store.append(room: "r", ops: sampleOps(4...4), onDurable: { durable.add($0) }, onFailure: { failures.add($0) })
    store.flush()
    #expect(durable.values.last == 4)
    #expect(failures.values.count == 1)
  }

  @Test("A failed append stops the room: an append queued after it is not stored behind the gap")
  func failedAppendLeavesNoGap() throws {
    let store = try Store(path: ":memory:")
    defer { store.close() }
    let durable = Collector<UInt64>()
    let failures = Collector<StoreError>()
    store.append(room: "r", ops: sampleOps(1...1), onDurable: { durable.add($0) })
    store.execute(
      "CREATE TRIGGER refuse BEFORE INSERT ON ops WHEN NEW.seq = 2 BEGIN SELECT RAISE(ABORT, 'refused'); END")
    store.append(room: "r", ops: sampleOps(2...2), onDurable: { durable.add($0) }, onFailure: { failures.add($0) })
    store.flush()
    store.execute("DROP TRIGGER refuse")
    // Queued by the room before it learnt that op 2 failed: storing it would leave a gap at 2.
    store.append(room: "r", ops: sampleOps(3...3), onDurable: { durable.add($0) }, onFailure: { failures.add($0) })
    store.flush()
    #expect(durable.values == [1])
    #expect(failures.values.count == 2)
    #expect(try store.ops(room: "r", after: 0, limit: 10).map(\.seq) == [1])

    store.reopen(room: "r")
    store.append(room: "r", ops: sampleOps(2...3), onDurable: { durable.add($0) })
    store.flush()
    #expect(try store.ops(room: "r", after: 0, limit: 10).map(\.seq) == [1, 2, 3])
  }

  @Test("In one batch, a room's writes after its failed snapshot fail and those before it are stored")
  func stopInsideOneBatch() throws {
    let store = try Store(path: ":memory:")
    defer { store.close() }
    store.onWriterThread { writer in
      writer.snapshotFault = { _, seq in seq == 4 ? .ioError(operation: "test", message: "fault") : nil }
    }
    let durable = Collector<String>()
    let failures = Collector<String>()
    let gate = store.holdWriter()
    for (room, seq) in [("r", UInt64(4)), ("o", 1)] {
      store.append(
        room: room, ops: sampleOps(1...seq), onDurable: { durable.add("\(room)\($0)") },
        onFailure: { _ in failures.add("\(room)") })
    }
    store.saveSnapshot(room: "r", seq: 4, bytes: [1]) { if case .failure = $0 { failures.add("snapshot") } }
    store.append(
      room: "r", ops: sampleOps(5...5), onDurable: { durable.add("r\($0)") }, onFailure: { _ in failures.add("r5") })
    store.append(room: "o", ops: sampleOps(2...2), onDurable: { durable.add("o\($0)") })
    store.reopen(room: "r")
    store.append(room: "r", ops: sampleOps(5...5), onDurable: { durable.add("r\($0)") })
    gate.signal()
    store.flush()
    #expect(durable.values == ["r4", "o1", "o2", "r5"])
    #expect(failures.values == ["snapshot", "r5"])
    #expect(store.statistics.failedAppends == 1)
  }

  @Test("A stopped room's summary is not written; a whole-room replace stores a new history and reopens it")
  func replaceReopens() throws {
    let store = try Store(path: ":memory:")
    defer { store.close() }
    let durable = Collector<UInt64>()
    let failures = Collector<StoreError>()
    store.append(room: "r", ops: sampleOps(1...1), onDurable: { durable.add($0) })
    _ = try StoreBoardsTests().commit(store, .summary(room: "r", RoomSummary(epoch: "e1", seq: 1, lists: 1, items: 1)))
    store.execute(
      "CREATE TRIGGER refuse BEFORE INSERT ON ops WHEN NEW.seq = 2 BEGIN SELECT RAISE(ABORT, 'refused'); END")
    store.append(room: "r", ops: sampleOps(2...2), onDurable: { durable.add($0) }, onFailure: { failures.add($0) })
    store.flush()
    store.execute("DROP TRIGGER refuse")
    #expect(failures.values.count == 1)
    // The rooms queue a summary naming seq 3 after a refused append: it is not written.
    store.append(room: "r", ops: sampleOps(3...3), onDurable: { durable.add($0) }, onFailure: { failures.add($0) })
    _ = try StoreBoardsTests().commit(store, .summary(room: "r", RoomSummary(epoch: "e1", seq: 3, lists: 1, items: 3)))
    #expect(failures.values.count == 2)
    #expect(try store.rooms(after: nil, limit: 10).first?.summary?.seq == 1)
    // The API replaces the board: a history of its own, and the room takes writes again.
    let replaced = try StoreBoardsTests().commit(
      store,
      .replace(
        room: "r", ops: sampleOps(1...2), snapshot: nil, summary: RoomSummary(epoch: "e2", seq: 2, lists: 1, items: 2)))
    #expect(replaced.seq == 2)
    store.append(room: "r", ops: sampleOps(3...3), onDurable: { durable.add($0) }, onFailure: { failures.add($0) })
    store.flush()
    #expect(failures.values.count == 2)
    #expect(durable.values.last == 3)
    #expect(try store.ops(room: "r", after: 0, limit: 10).map(\.seq) == [1, 2, 3])
  }
}

extension Store {
  /// Runs `body` on the writer thread with the writer, between batches, and waits for it.
  fileprivate func onWriterThread(_ body: @escaping @Sendable (StoreWriter) -> Void) {
    let writer = self.writer
    _ = writer.enqueue(.barrier({ body(writer) }))
    flush()
  }

  /// Runs SQL on the write connection between batches (a test's trigger), and waits for it.
  fileprivate func execute(_ sql: String) {
    onWriterThread { writer in
      do { try writer.connection.execute(sql) } catch { Issue.record("\(sql): \(error)") }
    }
  }
}
