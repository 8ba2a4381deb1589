import Foundation
import Testing

@testable import ReorderStore

@Suite("Store snapshots")
struct StoreSnapshotTests {
  @Test("A saved snapshot loads back; a room without one loads nil")
  func saveAndLoad() throws {
    let store = try Store(path: ":memory:")
    defer { store.close() }
    #expect(try store.loadSnapshot(room: "r") == nil)
    let saved = Collector<Bool>()
    store.saveSnapshot(room: "r", seq: 7, bytes: [1, 2, 3]) { saved.add((try? $0.get()) != nil) }
    store.flush()
    #expect(saved.values == [true])
    let loaded = try #require(try store.loadSnapshot(room: "r"))
    #expect(loaded.seq == 7)
    #expect(loaded.bytes == [1, 2, 3])
    #expect(try store.roomNames() == ["r"])
  }

  @Test("A snapshot's board JSON loads back with it; one saved without it loads nil; a resave replaces both")
  func boardJSON() throws {
    let store = try Store(path: ":memory:")
    defer { store.close() }
    store.saveSnapshot(room: "r", seq: 3, bytes: [1], board: Array(#"{"lists":[]}"#.utf8))
    store.flush()
    #expect(try store.loadSnapshot(room: "r")?.board == Array(#"{"lists":[]}"#.utf8))
    store.saveSnapshot(room: "r", seq: 3, bytes: [2])
    store.flush()
    let resaved = try #require(try store.loadSnapshot(room: "r"))
    #expect(resaved.bytes == [2])
    #expect(resaved.board == nil)
    store.saveSnapshot(room: "r", seq: 4, bytes: [3], board: [])
    store.flush()
    #expect(try store.loadSnapshot(room: "r")?.board == [])
  }

  @Test("a database of schema 2 gets the board column; its snapshots load without a board")
  func migratesFromVersionTwo() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    try directory.writeDatabase(
      version: 2, seed: "INSERT INTO snapshots(room, seq, bytes) VALUES ('legacy', 5, x'0102')")
    let store = try Store(path: directory.path)
    defer { store.close() }
    let loaded = try #require(try store.loadSnapshot(room: "legacy"))
    #expect(loaded.seq == 5)
    #expect(loaded.bytes == [1, 2])
    #expect(loaded.board == nil)
  }

  @Test("The latest snapshot by seq wins; saving the same seq replaces its bytes")
  func latestWins() throws {
    let store = try Store(path: ":memory:")
    defer { store.close() }
    store.saveSnapshot(room: "r", seq: 10, bytes: [10])
    store.saveSnapshot(room: "r", seq: 5, bytes: [5])
    store.flush()
    #expect(try store.loadSnapshot(room: "r")?.seq == 10)
    store.saveSnapshot(room: "r", seq: 10, bytes: [11])
    store.saveSnapshot(room: "r", seq: 20, bytes: [])
    store.flush()
    let latest = try #require(try store.loadSnapshot(room: "r"))
    #expect(latest.seq == 20)
    #expect(latest.bytes == [])
  }

  @Test("Only the latest two snapshots of a room are kept")
  func keepsTwo() throws {
    let store = try Store(path: ":memory:")
    defer { store.close() }
    for seq in UInt64(1)...5 { store.saveSnapshot(room: "r", seq: seq, bytes: [UInt8(seq)]) }
    store.saveSnapshot(room: "other", seq: 1, bytes: [1])
    store.flush()
    let seqs = try store.storedSnapshotSeqs()
    #expect(seqs == ["other:1", "r:4", "r:5"])
  }
}

extension Store {
  /// "room:seq" of every stored snapshot, read through the read connection.
  fileprivate func storedSnapshotSeqs() throws -> [String] {
    readLock.lock()
    defer { readLock.unlock() }
    let query = try reader.prepare("SELECT room, seq FROM snapshots ORDER BY room, seq")
    var rows: [String] = []
    while try query.step() { rows.append("\(query.text(0)):\(query.int64(1))") }
    return rows
  }
}
