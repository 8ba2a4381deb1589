import Foundation
import Testing

@testable import ReorderStore

@Suite("Store lifecycle and errors")
struct StoreLifecycleTests {
  @Test("Reopening the data directory keeps ops, snapshots and rooms")
  func reopenKeepsEverything() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let first = try Store(path: directory.path)
    first.append(room: "a", ops: sampleOps(1...20), onDurable: { _ in })
    first.append(room: "b", ops: sampleOps(1...1), onDurable: { _ in })
    first.saveSnapshot(room: "a", seq: 15, bytes: [0xAB])
    first.close()
    #expect(FileManager.default.fileExists(atPath: directory.path + "/reorder.sqlite3"))
    let second = try Store(path: directory.path)
    defer { second.close() }
    #expect(try second.ops(room: "a", after: 0, limit: 100) == sampleOps(1...20))
    #expect(try second.loadSnapshot(room: "a")?.bytes == [0xAB])
    #expect(try second.roomNames() == ["a", "b"])
  }

  @Test("Acknowledged ops are readable by another store even if the first was never closed")
  func acknowledgedOpsSurviveWithoutClose() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let abandoned = try Store(path: directory.path)
    let durable = Collector<UInt64>()
    for op in sampleOps(1...300) { abandoned.append(room: "r", ops: [op], onDurable: { durable.add($0) }) }
    let acknowledged = durable.wait(for: 300)
    #expect(acknowledged.count == 300)
    // No close(), no flush(): a second process-like opener must see every acknowledged op.
    let survivor = try Store(path: directory.path)
    defer { survivor.close() }
    #expect(try survivor.ops(room: "r", after: 0, limit: 1000) == sampleOps(1...300))
    withExtendedLifetime(abandoned) {}
  }

  @Test("close() commits everything still queued, then refuses writes and reads")
  func closeFlushesThenRefuses() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let store = try Store(path: directory.path)
    let durable = Collector<UInt64>()
    for op in sampleOps(1...500) { store.append(room: "r", ops: [op], onDurable: { durable.add($0) }) }
    store.close()
    #expect(durable.values.count == 500)
    store.close()
    let failures = Collector<StoreError>()
    store.append(room: "r", ops: sampleOps(501...501), onDurable: { durable.add($0) }, onFailure: { failures.add($0) })
    #expect(failures.values == [.closed])
    #expect(throws: StoreError.closed) { try store.ops(room: "r", after: 0, limit: 1) }
    store.flush()
    let reopened = try Store(path: directory.path)
    defer { reopened.close() }
    #expect(try reopened.lastSeq(room: "r") == 500)
  }

  @Test("close() from inside onDurable does not deadlock")
  func closeFromCompletion() throws {
    let store = try Store(path: ":memory:")
    let closed = Collector<Bool>()
    store.append(room: "r", ops: sampleOps(1...1)) { _ in
      store.close()
      closed.add(true)
    }
    #expect(closed.wait(for: 1) == [true])
    store.close()
  }

  @Test("Two in-memory stores are separate and throwaway")
  func memoryStoresAreIndependent() throws {
    let one = try Store(path: ":memory:")
    let two = try Store(path: ":memory:")
    defer {
      one.close()
      two.close()
    }
    one.append(room: "r", ops: sampleOps(1...3), onDurable: { _ in })
    one.flush()
    #expect(try one.lastSeq(room: "r") == 3)
    #expect(try two.roomNames().isEmpty)
    #expect(one.databasePath == ":memory:")
  }

  @Test("A data path that is a file is refused with a clear error")
  func pathIsAFile() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
    let file = directory.path + "/plain-file"
    _ = FileManager.default.createFile(atPath: file, contents: Data([1]))
    #expect(throws: StoreError.notADirectory(path: file)) { try Store(path: file) }
    do {
      _ = try Store(path: file + "/data")
      Issue.record("opening a directory below a file should fail")
    } catch {
      guard case .cannotCreateDirectory(let path, _) = error else {
        Issue.record("unexpected error \(error)")
        return
      }
      #expect(path == file + "/data")
      #expect(error.description.contains("cannot create the data directory"))
    }
    #expect(throws: StoreError.self) { try Store(path: "") }
  }

  @Test("A file that is not a Reorder database is refused, and left alone")
  func foreignFile() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
    let file = directory.path + "/reorder.sqlite3"
    let garbage = Data(repeating: 0x5A, count: 4096)
    _ = FileManager.default.createFile(atPath: file, contents: garbage)
    #expect(throws: StoreError.notAReorderDatabase(path: file)) { try Store(path: directory.path) }
    #expect(FileManager.default.contents(atPath: file) == garbage)
  }

  @Test("A database from a newer schema is refused")
  func newerSchema() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    try Store(path: directory.path).close()
    let file = directory.path + "/reorder.sqlite3"
    let raw = try SQLiteConnection(location: file, displayPath: file, create: false, uri: false)
    try raw.execute("PRAGMA user_version = 99")
    raw.close()
    #expect(throws: StoreError.schemaTooNew(found: 99, supported: StoreSchema.currentVersion)) {
      try Store(path: directory.path)
    }
  }

  @Test("The database runs in WAL mode with synchronous=FULL")
  func pragmas() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let store = try Store(path: directory.path)
    defer { store.close() }
    store.readLock.lock()
    #expect(try store.reader.scalarText("PRAGMA journal_mode") == "wal")
    store.readLock.unlock()
    let synchronous = Collector<Int64>()
    let writer = store.writer
    _ = writer.enqueue(.barrier({ synchronous.add((try? writer.connection.scalarInt("PRAGMA synchronous")) ?? -1) }))
    store.flush()
    #expect(synchronous.values == [2])  // 2 = FULL
  }

  @Test("Reads do not wait for an open write transaction and see committed data only")
  func readsDoNotWaitForWriters() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let store = try Store(path: directory.path)
    defer { store.close() }
    store.append(room: "r", ops: sampleOps(1...2), onDurable: { _ in })
    store.flush()
    let file = directory.path + "/reorder.sqlite3"
    let other = try SQLiteConnection(location: file, displayPath: file, create: false, uri: false)
    defer { other.close() }
    try other.execute("BEGIN IMMEDIATE; INSERT INTO ops(room, seq, payload) VALUES ('r', 3, x'00')")
    #expect(try store.ops(room: "r", after: 0, limit: 10).map(\.seq) == [1, 2])
    #expect(try store.lastSeq(room: "r") == 2)
    try other.execute("COMMIT")
    #expect(try store.lastSeq(room: "r") == 3)
  }
}
