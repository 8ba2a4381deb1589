import Foundation
import Testing

@testable import ReorderStore

@Suite("Store write failures")
struct StoreFailureTests {
  @Test("A full disk fails the whole batch, acknowledges nothing, and the store recovers")
  func diskFullFailsTheBatch() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let store = try Store(path: directory.path)
    defer { store.close() }
    store.append(room: "r", ops: sampleOps(1...1), onDurable: { _ in })
    store.flush()
    store.onWriter { connection in
      let pages = (try? connection.scalarInt("PRAGMA page_count")) ?? 0
      _ = try? connection.scalarInt("PRAGMA max_page_count = \(pages)")
    }
    let gate = store.holdWriter()
    let durable = Collector<UInt64>()
    let failures = Collector<StoreError>()
    let big = [StoredOp(seq: 3, payload: [UInt8](repeating: 7, count: 256 * 1024))]
    store.append(room: "r", ops: sampleOps(2...2), onDurable: { durable.add($0) }, onFailure: { failures.add($0) })
    store.append(room: "r", ops: big, onDurable: { durable.add($0) }, onFailure: { failures.add($0) })
    gate.signal()
    store.flush()
    #expect(durable.values.isEmpty)
    #expect(failures.values.count == 2)
    #expect(failures.values.allSatisfy { if case .diskFull = $0 { true } else { false } })
    #expect(failures.values.first?.description.contains("free some space") == true)
    #expect(try store.lastSeq(room: "r") == 1)
    store.onWriter { connection in _ = try? connection.scalarInt("PRAGMA max_page_count = 1073741823") }
    store.reopen(room: "r")  // a failed write stops the room's writes until then
    store.append(
      room: "r", ops: sampleOps(2...2) + big, onDurable: { durable.add($0) }, onFailure: { failures.add($0) })
    store.flush()
    #expect(durable.values == [3])
    #expect(try store.ops(room: "r", after: 0, limit: 10).map(\.seq) == [1, 2, 3])
    #expect(store.statistics.failedAppends == 2)
  }
}

extension Store {
  /// Runs `body` on the writer thread with the write connection, between batches.
  fileprivate func onWriter(_ body: @escaping @Sendable (SQLiteConnection) -> Void) {
    let writer = self.writer
    _ = writer.enqueue(.barrier({ body(writer.connection) }))
    flush()
  }
}
