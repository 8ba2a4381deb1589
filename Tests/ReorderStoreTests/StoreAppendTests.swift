import Foundation
import ReorderBasics
import Testing

@testable import ReorderStore

@Suite("Store appends")
struct StoreAppendTests {
  @Test("Appended ops read back in seq order, with their bytes")
  func appendedOpsReadBack() throws {
    let store = try Store(path: ":memory:")
    defer { store.close() }
    let ops = sampleOps(1...50) + [StoredOp(seq: 51, payload: [])]
    for op in ops { store.append(room: "r", ops: [op], onDurable: { _ in }) }
    store.flush()
    #expect(try store.ops(room: "r", after: 0, limit: 1000) == ops)
    #expect(try store.ops(room: "other", after: 0, limit: 1000).isEmpty)
    #expect(try store.lastSeq(room: "r") == 51)
  }

  @Test("Many appends while a commit is in flight share one transaction")
  func groupCommitBatches() throws {
    let store = try Store(path: ":memory:")
    defer { store.close() }
    let before = store.statistics.commits
    let gate = store.holdWriter()
    let durable = Collector<UInt64>()
    for op in sampleOps(1...1000) { store.append(room: "r", ops: [op], onDurable: { durable.add($0) }) }
    gate.signal()
    #expect(durable.wait(for: 1000).count == 1000)
    let stats = store.statistics
    #expect(stats.commits == before + 1)
    #expect(stats.largestBatch == 1000)
    #expect(stats.ops == 1000)
  }

  @Test("Concurrent producers need far fewer transactions than appends")
  func concurrentAppendsAreGrouped() throws {
    let store = try Store(path: ":memory:")
    defer { store.close() }
    let durable = Collector<UInt64>()
    DispatchQueue.concurrentPerform(iterations: 8) { producer in
      for index in 0..<250 {
        let seq = UInt64(producer * 250 + index + 1)
        store.append(room: "room-\(producer)", ops: [StoredOp(seq: seq, payload: [1])], onDurable: { durable.add($0) })
      }
    }
    #expect(durable.wait(for: 2000).count == 2000)
    #expect(store.statistics.appends == 2000)
    #expect(store.statistics.commits <= 2000)
    #expect(try store.roomNames().count == 8)
  }

  @Test("onDurable runs once per append, in order, with the room's highest durable seq")
  func onDurableGetsTheRightSeq() throws {
    let store = try Store(path: ":memory:")
    defer { store.close() }
    let gate = store.holdWriter()
    let durable = Collector<String>()
    store.append(room: "a", ops: sampleOps(1...1), onDurable: { durable.add("a\($0)") })
    store.append(room: "b", ops: sampleOps(1...3), onDurable: { durable.add("b\($0)") })
    store.append(room: "a", ops: sampleOps(2...2), onDurable: { durable.add("a\($0)") })
    store.append(room: "a", ops: [], onDurable: { durable.add("a\($0)") })
    store.append(room: "c", ops: [], onDurable: { durable.add("c\($0)") })
    gate.signal()
    store.flush()
    #expect(durable.values == ["a1", "b3", "a2", "a2", "c0"])
  }

  @Test("The seq reported for a later batch continues from what is stored")
  func highWaterSurvivesBatches() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let first = try Store(path: directory.path)
    first.append(room: "r", ops: sampleOps(1...10), onDurable: { _ in })
    first.close()
    let second = try Store(path: directory.path)
    defer { second.close() }
    let durable = Collector<UInt64>()
    second.append(room: "r", ops: [], onDurable: { durable.add($0) })
    second.flush()
    #expect(durable.values == [10])
  }

  @Test("ops(after:limit:) pages through the log")
  func opsAfterWithLimit() throws {
    let store = try Store(path: ":memory:")
    defer { store.close() }
    store.append(room: "r", ops: sampleOps(1...100), onDurable: { _ in })
    store.flush()
    #expect(try store.ops(room: "r", after: 0, limit: 10).map(\.seq) == Array(1...10))
    #expect(try store.ops(room: "r", after: 95, limit: 10).map(\.seq) == Array(96...100))
    #expect(try store.ops(room: "r", after: 100, limit: 10).isEmpty)
    #expect(try store.ops(room: "r", after: 5, limit: 0).isEmpty)
    #expect(try store.ops(room: "r", after: 5, limit: -1).isEmpty)
    #expect(try store.ops(room: "r", after: UInt64.max, limit: 10).isEmpty)
  }

  @Test("Re-appending identical bytes is idempotent; different bytes fail the whole append alone")
  func conflictingSeq() throws {
    let store = try Store(path: ":memory:")
    defer { store.close() }
    let durable = Collector<UInt64>()
    let failures = Collector<StoreError>()
    store.append(room: "r", ops: sampleOps(1...3), onDurable: { durable.add($0) })
    store.flush()
    let gate = store.holdWriter()
    store.append(room: "r", ops: sampleOps(2...3), onDurable: { durable.add($0) })
    let clash = [StoredOp(seq: 4, payload: [4]), StoredOp(seq: 3, payload: [9])]
    store.append(room: "r", ops: clash, onDurable: { durable.add($0) }, onFailure: { failures.add($0) })
    store.reopen(room: "r")  // a failed write stops the room's writes until then
    store.append(room: "r", ops: sampleOps(4...4), onDurable: { durable.add($0) })
    gate.signal()
    store.flush()
    #expect(durable.values == [3, 3, 4])
    #expect(failures.values == [.conflictingSeq(room: "r", seq: 3)])
    #expect(try store.ops(room: "r", after: 0, limit: 10) == sampleOps(1...4))
    #expect(store.statistics.failedAppends == 1)
  }

  @Test("A seq above Int64.max is refused with a clear error")
  func seqOutOfRange() throws {
    let store = try Store(path: ":memory:")
    defer { store.close() }
    let failures = Collector<StoreError>()
    store.append(
      room: "r", ops: [StoredOp(seq: .max, payload: [])], onDurable: { _ in }, onFailure: { failures.add($0) })
    store.flush()
    #expect(failures.values == [.seqOutOfRange(.max)])
    #expect(failures.values.first?.description.contains("largest storable") == true)
  }

  @Test("Readers running during writes see only committed, gap-free prefixes")
  func readersSeeCommittedPrefixes() throws {
    let store = try Store(path: ":memory:")
    defer { store.close() }
    let durable = Collector<UInt64>()
    let reads = Collector<Bool>()
    let readerDone = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      for _ in 0..<200 {
        let seqs = (try? store.ops(room: "r", after: 0, limit: 10_000).map(\.seq)) ?? [0]
        reads.add(seqs == (0..<seqs.count).map { UInt64($0 + 1) })
      }
      readerDone.signal()
    }
    for op in sampleOps(1...2000) { store.append(room: "r", ops: [op], onDurable: { durable.add($0) }) }
    #expect(durable.wait(for: 2000).count == 2000)
    #expect(readerDone.wait(timeout: .now() + 60) == .success)
    #expect(reads.values.allSatisfy { $0 })
  }
}

@Suite("Store statistics")
struct StoreStatisticsTests {
  @Test("Every durable append is one observation of the commit-latency histogram; failed ones are not")
  func commitLatencyHistogram() throws {
    let store = try Store(path: ":memory:")
    defer { store.close() }
    let durable = Collector<UInt64>()
    for op in sampleOps(1...20) { store.append(room: "r", ops: [op], onDurable: { durable.add($0) }) }
    store.append(room: "r", ops: [StoredOp(seq: 1, payload: [0xFF])], onDurable: { _ in }, onFailure: { _ in })
    store.flush()
    let latency = store.statistics.commitLatency
    #expect(latency.count == 20)
    #expect(latency.counts.reduce(0, +) == 20)
    #expect(latency.cumulative.last?.count == 20)
    #expect(latency.cumulative.last?.le == .infinity)
    #expect(latency.sum > 0)
    #expect(store.statistics.failedAppends == 1)
  }

  @Test("The histogram's buckets are Prometheus-style upper bounds")
  func buckets() {
    var h = LatencyBuckets()
    h.record(seconds: 0.000_1)
    h.record(seconds: 0.001)
    h.record(seconds: 0.003)
    h.record(seconds: 60)
    #expect(h.cumulative.first?.count == 1)
    #expect(h.cumulative[1].count == 2, "le is inclusive")
    #expect(h.counts.last == 1)
    #expect(h.quantileBound(0.5) == 0.001)
    #expect(h.quantileBound(1) == .infinity)
    #expect(LatencyBuckets().quantileBound(0.5) == nil)
  }
}
