import Foundation
import Testing

@testable import ReorderStore

@Suite("Store whole-board writes and the room list")
struct StoreBoardsTests {
  static let summary = RoomSummary(epoch: "e1", seq: 3, lists: 1, items: 2)

  /// Queues `write` and waits for its commit.
  func commit(_ store: Store, _ write: BoardWrite) throws -> BoardWriteResult {
    let done = Collector<Result<BoardWriteResult, StoreError>>()
    store.write(write) { done.add($0) }
    store.flush()
    return try #require(done.values.first).get()
  }

  @Test("replace deletes the room's ops and snapshots and stores the new ones in one transaction")
  func replace() throws {
    let store = try Store(path: ":memory:")
    defer { store.close() }
    store.append(room: "r", ops: sampleOps(1...10), onDurable: { _ in })
    store.saveSnapshot(room: "r", seq: 8, bytes: [8])
    store.flush()
    let result = try commit(
      store,
      .replace(
        room: "r", ops: [StoredOp(seq: 1, payload: [9]), StoredOp(seq: 2, payload: [10])],
        snapshot: StoredSnapshot(seq: 2, bytes: [2], board: [7]), summary: Self.summary))
    #expect(result == BoardWriteResult(existed: true, seq: 2))
    #expect(try store.ops(room: "r", after: 0, limit: 100).map(\.payload) == [[9], [10]])
    #expect(try store.loadSnapshot(room: "r")?.bytes == [2])
    #expect(try store.loadSnapshot(room: "r")?.board == [7])
    // The next append follows the new history's seq.
    let durable = Collector<UInt64>()
    store.append(room: "r", ops: [StoredOp(seq: 3, payload: [11])], onDurable: { durable.add($0) })
    store.flush()
    #expect(durable.values == [3])
    let fresh = try commit(store, .replace(room: "new", ops: sampleOps(1...1), snapshot: nil, summary: Self.summary))
    #expect(fresh == BoardWriteResult(existed: false, seq: 1))
  }

  @Test("create stores a board only where no history is stored; a stored one stays as it was")
  func createOnlyWhereAbsent() throws {
    let store = try Store(path: ":memory:")
    defer { store.close() }
    store.append(room: "r", ops: sampleOps(1...3), onDurable: { _ in })
    store.flush()
    let taken = try commit(
      store, .create(room: "r", ops: [StoredOp(seq: 1, payload: [9])], snapshot: nil, summary: Self.summary))
    #expect(taken == BoardWriteResult(existed: true, seq: 3))
    #expect(try store.ops(room: "r", after: 0, limit: 100).count == 3)
    let fresh = try commit(
      store,
      .create(
        room: "new", ops: [StoredOp(seq: 1, payload: [9])], snapshot: StoredSnapshot(seq: 1, bytes: [1], board: nil),
        summary: Self.summary))
    #expect(fresh == BoardWriteResult(existed: false, seq: 1))
    #expect(try store.ops(room: "new", after: 0, limit: 100).map(\.payload) == [[9]])
    #expect(try store.loadSnapshot(room: "new")?.bytes == [1])
  }

  @Test("delete removes every row of a room, which leaves the list; a later append stores it again")
  func delete() throws {
    let store = try Store(path: ":memory:")
    defer { store.close() }
    store.append(room: "a", ops: sampleOps(1...3), onDurable: { _ in })
    store.append(room: "b", ops: sampleOps(1...2), onDurable: { _ in })
    store.saveSnapshot(room: "a", seq: 3, bytes: [3])
    store.flush()
    #expect(try commit(store, .delete(room: "a")).existed)
    #expect(try store.ops(room: "a", after: 0, limit: 10).isEmpty)
    #expect(try store.loadSnapshot(room: "a") == nil)
    #expect(try store.roomNames() == ["b"])
    #expect(try !commit(store, .delete(room: "a")).existed)
    store.append(room: "a", ops: sampleOps(1...1), onDurable: { _ in })
    store.flush()
    #expect(try store.roomNames() == ["a", "b"])
    #expect(try store.ops(room: "b", after: 0, limit: 10).count == 2)
  }

  @Test("a summary's time is the one it carries; saved again at the same epoch and seq it keeps the stored time")
  func summaryTimes() throws {
    let store = try Store(path: ":memory:")
    defer { store.close() }
    store.append(room: "a", ops: sampleOps(1...2), onDurable: { _ in })
    store.flush()
    func stored() throws -> Int64? { try store.rooms(after: nil, limit: 1).first?.updatedMilliseconds }
    _ = try commit(
      store, .summary(room: "a", RoomSummary(epoch: "e", seq: 1, lists: 1, items: 1, updatedMilliseconds: 1_000)))
    #expect(try stored() == 1_000)
    _ = try commit(
      store, .summary(room: "a", RoomSummary(epoch: "e", seq: 1, lists: 1, items: 1, updatedMilliseconds: 2_000)))
    _ = try commit(store, .summary(room: "a", RoomSummary(epoch: "e", seq: 1, lists: 1, items: 1)))
    #expect(try stored() == 1_000, "nothing changed: the first time stays")
    _ = try commit(
      store, .summary(room: "a", RoomSummary(epoch: "e", seq: 2, lists: 1, items: 1, updatedMilliseconds: 3_000)))
    #expect(try stored() == 3_000)
    _ = try commit(store, .summary(room: "a", RoomSummary(epoch: "f", seq: 2, lists: 1, items: 1)))
    let now = try #require(try stored())
    #expect(abs(Double(now) / 1_000 - Date().timeIntervalSince1970) < 60, "another epoch: the commit's time")
  }

  @Test("rooms(after:limit:) pages by name with the latest summary; rooms without one have none")
  func list() throws {
    let store = try Store(path: ":memory:")
    defer { store.close() }
    for room in ["c", "a", "b"] { store.append(room: room, ops: sampleOps(1...1), onDurable: { _ in }) }
    store.flush()
    _ = try commit(store, .summary(room: "b", RoomSummary(epoch: "eb", seq: 1, lists: 2, items: 5)))
    _ = try commit(store, .summary(room: "gone", Self.summary))  // not stored: left alone
    let first = try store.rooms(after: nil, limit: 2)
    #expect(first.map(\.name) == ["a", "b"])
    #expect(first[0].summary == nil)
    #expect(first[1].summary == RoomSummary(epoch: "eb", seq: 1, lists: 2, items: 5))
    let written = try #require(first[1].updatedMilliseconds)
    #expect(abs(Double(written) / 1_000 - Date().timeIntervalSince1970) < 3_600)
    #expect(try store.rooms(after: "b", limit: 2).map(\.name) == ["c"])
    #expect(try store.rooms(after: "c", limit: 2).isEmpty)
    #expect(try store.roomNames() == ["a", "b", "c"])
  }

  @Test("a database of schema 1 gets the summary columns, and keeps its rooms")
  func migratesFromVersionOne() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    try directory.writeDatabase(version: 1, seed: "INSERT INTO rooms(name) VALUES ('legacy')")
    let store = try Store(path: directory.path)
    defer { store.close() }
    #expect(
      try store.rooms(after: nil, limit: 10) == [StoredRoom(name: "legacy", summary: nil, updatedMilliseconds: nil)])
  }
}

extension StoreBoardsTests {
  @Test("summaries queued in one commit write the latest of each room")
  func latestSummaryWins() throws {
    let store = try Store(path: ":memory:")
    defer { store.close() }
    store.append(room: "r", ops: sampleOps(1...1), onDurable: { _ in })
    store.flush()
    let gate = store.holdWriter()
    let done = Collector<Bool>()
    for seq in 1...5 as ClosedRange<UInt64> {
      store.write(.summary(room: "r", RoomSummary(epoch: "e", seq: seq, lists: Int(seq), items: 0))) {
        done.add((try? $0.get()) != nil)
      }
    }
    gate.signal()
    store.flush()
    #expect(done.values == [true, true, true, true, true])
    #expect(try store.rooms(after: nil, limit: 1).first?.summary?.seq == 5)
    #expect(try store.rooms(after: nil, limit: 1).first?.summary?.lists == 5)
  }
}
