import Foundation
import Testing

@testable import ReorderStore

/// Trimming on snapshot save, and the file it leaves: freed pages are reused or handed back, so the
/// database and its WAL stop growing while ops go on.
@Suite("Store trimming", .serialized)
struct StoreTrimmingTests {
  /// Bytes of a file, 0 when it is missing.
  func size(_ path: String) -> Int { (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 }

  /// Appends `count` ops of 200 bytes from `seq` + 1, then a snapshot of 20 KB at the last one.
  func round(_ store: Store, after seq: UInt64, count: Int) -> UInt64 {
    let ops = (1...UInt64(count)).map { k in
      StoredOp(seq: seq + k, payload: (0..<200).map { UInt8(truncatingIfNeeded: Int(seq + k) &* 31 &+ $0) })
    }
    store.append(room: "r", ops: ops, onDurable: { _ in })
    store.saveSnapshot(room: "r", seq: seq + UInt64(count), bytes: [UInt8](repeating: 7, count: 20_000))
    store.flush()
    return seq + UInt64(count)
  }

  @Test(
    "A snapshot at S trims the log to its base, the latest snapshot at or before S - retained: ops up to it (all but op 1) and the snapshots before it"
  )
  func snapshotTrimsTheLog() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let store = try Store(path: directory.path, retainedOps: 100)
    defer { store.close() }
    var seq: UInt64 = 0
    for _ in 0..<5 { seq = round(store, after: seq, count: 60) }
    let kept = try store.ops(room: "r", after: 0, limit: 10_000)
    // Snapshots at 60, 120, 180, 240, 300: at 300 the base is the one at 180 (<= 300 - 100).
    #expect(seq == 300)
    #expect(kept.first?.seq == 1, "op 1 carries the epoch")
    #expect(kept.dropFirst().first?.seq == 181, "every kept op has a snapshot at or before it")
    #expect(kept.count == 1 + 120, "at least the retained 100 ops, at most one interval more")
    #expect(try store.loadSnapshot(room: "r")?.seq == 300)
    #expect(try store.loadSnapshot(room: "r", atOrBefore: 250)?.seq == 240)
    #expect(try store.loadSnapshot(room: "r", atOrBefore: 180)?.seq == 180, "the base stays")
    #expect(try store.loadSnapshot(room: "r", atOrBefore: 179) == nil, "the snapshots before the base go")
    let newest = try store.ops(room: "r", before: 250, limit: 3)
    #expect(newest.map(\.seq) == [247, 248, 249], "the newest below 250, in seq order")
  }

  @Test("A new database uses incremental auto-vacuum")
  func newDatabasesVacuumIncrementally() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let store = try Store(path: directory.path, retainedOps: 100)
    store.close()
    let check = try SQLiteConnection(
      location: store.databasePath, displayPath: store.databasePath, create: false, uri: false)
    defer { check.close() }
    #expect(try check.scalarInt("PRAGMA auto_vacuum") == 2, "2 is INCREMENTAL")
  }

  @Test("While ops go on, the database stops growing once the windows are full, and the WAL stays bounded")
  func fileStopsGrowing() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let store = try Store(path: directory.path, retainedOps: 2_000)
    defer { store.close() }
    var seq: UInt64 = 0
    var sizes: [Int] = []
    var wal: [Int] = []
    for _ in 0..<80 {
      seq = round(store, after: seq, count: 500)
      sizes.append(size(store.databasePath))
      wal.append(size(store.databasePath + "-wal"))
    }
    // 2,000 retained + 500 of an interval = 2,500 ops of ~200 B: about 0.6 MB of live content,
    // reached after 5 rounds; 40,000 ops were written in all (8 MB without trimming). The database
    // file only grows at checkpoints, so it settles after the WAL's first cycles.
    let settled = sizes[40]
    #expect(sizes[40...].max()! <= settled + (256 << 12), "database sizes: \(sizes)")
    #expect(settled < 2 << 20, "40,000 ops of 200 B leave \(settled) bytes")
    #expect(wal.max()! <= (1_000 + 200) * 4096, "WAL sizes: \(wal)")
  }

  @Test("A large trim hands the freed space back to the file system, keeping only a slack of free pages")
  func largeTrimShrinksTheFile() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    var seq: UInt64 = 0
    let path = directory.path + "/" + Store.databaseFileName
    do {
      let untrimmed = try Store(path: directory.path)
      for _ in 0..<40 { seq = round(untrimmed, after: seq, count: 500) }
      untrimmed.close()
    }
    let before = size(path)
    let store = try Store(path: directory.path, retainedOps: 1_000)
    seq = round(store, after: seq, count: 500)
    #expect(try store.ops(room: "r", after: 0, limit: 100_000).count == 1 + 1_000)
    let pages = try store.reader.scalarInt("PRAGMA page_count")
    let free = try store.reader.scalarInt("PRAGMA freelist_count")
    #expect(free <= max(256, pages / StoreWriter.freePageSlackDivisor), "\(free) free of \(pages) pages")
    store.close()
    let after = size(path)
    #expect(after * 4 < before, "20,000 ops took \(before) bytes, the 1,001 kept take \(after)")
  }
}
