import Foundation

@testable import ReorderStore

/// A fresh directory under the system temporary directory, removed by `remove()`.
struct TemporaryDirectory {
  let path: String

  init() {
    path = (NSTemporaryDirectory() as NSString).appendingPathComponent("reorder-store-\(UUID().uuidString)")
  }

  func remove() {
    try? FileManager.default.removeItem(atPath: path)
  }

  /// Writes a database of an older schema here: the first `version` migrations, then `seed`.
  func writeDatabase(version: Int, seed: String) throws {
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    let file = (path as NSString).appendingPathComponent(Store.databaseFileName)
    let old = try SQLiteConnection(location: file, displayPath: file, create: true, uri: false)
    for migration in StoreSchema.migrations.prefix(version) { try old.execute(migration) }
    try old.execute("\(seed); PRAGMA user_version = \(version)")
    try old.execute("PRAGMA application_id = \(StoreSchema.applicationID)")
    old.close()
  }
}

/// Collects values from completions on other threads.
final class Collector<Value: Sendable>: @unchecked Sendable {
  private let condition = NSCondition()
  private var stored: [Value] = []

  func add(_ value: Value) {
    condition.lock()
    stored.append(value)
    condition.broadcast()
    condition.unlock()
  }

  var values: [Value] {
    condition.lock()
    defer { condition.unlock() }
    return stored
  }

  /// Waits until at least `count` values arrived or `timeout` seconds passed; returns the values.
  func wait(for count: Int, timeout: TimeInterval = 30) -> [Value] {
    let deadline = Date(timeIntervalSinceNow: timeout)
    condition.lock()
    defer { condition.unlock() }
    while stored.count < count && condition.wait(until: deadline) {}
    return stored
  }
}

extension Store {
  /// Holds the writer thread until the returned gate is opened, so that the next appends land in one batch.
  func holdWriter() -> DispatchSemaphore {
    let gate = DispatchSemaphore(value: 0)
    let entered = DispatchSemaphore(value: 0)
    _ = writer.enqueue(
      .barrier({
        entered.signal()
        gate.wait()
      }))
    entered.wait()
    return gate
  }
}

/// `count` single-op payloads `[seq as 8 bytes]`.
func sampleOps(_ range: ClosedRange<UInt64>) -> [StoredOp] {
  range.map { seq in StoredOp(seq: seq, payload: withUnsafeBytes(of: seq.littleEndian) { Array($0) }) }
}
