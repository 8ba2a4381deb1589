import Foundation
import ReorderStore

/// `reorder-bench store [--ops N] [--window W] [--producers P] [--payload BYTES] [--memory]`
///
/// Measures durable appends per second into one room: producers append single ops as fast as
/// `onDurable` allows with at most W appends in flight (shared by the producers), on a real data
/// directory (WAL, synchronous=FULL). The baseline is the same store with a window of 1 (one op per
/// transaction, i.e. no group commit). Prints a table and one JSON line.
func runStoreBenchmark(arguments: [String]) -> Never {
  var options = StoreBenchOptions()
  var index = 0
  while index < arguments.count {
    let flag = arguments[index]
    let value = index + 1 < arguments.count ? Int(arguments[index + 1]) : nil
    switch (flag, value) {
    case ("--ops", let value?): options.ops = value
    case ("--window", let value?): options.window = value
    case ("--producers", let value?): options.producers = value
    case ("--payload", let value?): options.payloadBytes = value
    case ("--baseline-ops", let value?): options.baselineOps = value
    case ("--memory", _):
      options.inMemory = true
      index -= 1
    default:
      FileHandle.standardError.write(
        Data(
          "usage: reorder-bench store [--ops N] [--window W] [--producers P] [--payload BYTES] [--baseline-ops N] [--memory]\n"
            .utf8))
      exit(2)
    }
    index += 2
  }
  let grouped = measureStore(options)
  var baselineOptions = options
  baselineOptions.window = 1
  baselineOptions.producers = 1
  baselineOptions.ops = options.baselineOps
  let baseline = measureStore(baselineOptions)
  print("store benchmark (\(options.inMemory ? ":memory:" : "data dir, WAL, synchronous=FULL"))")
  print(StoreBenchResult.header)
  print(grouped.row(label: "group commit"))
  print(baseline.row(label: "baseline (window 1)"))
  print(
    String(format: "ratio: %.1fx durable ops/s over one-op-per-commit", grouped.opsPerSecond / baseline.opsPerSecond))
  print(
    "{\"bench\":\"store\",\"grouped\":\(grouped.json),\"baseline\":\(baseline.json),"
      + "\"ratio\":\(String(format: "%.2f", grouped.opsPerSecond / baseline.opsPerSecond))}")
  exit(0)
}

struct StoreBenchOptions {
  var ops = 200_000
  var window = 2_000
  var producers = 1
  var payloadBytes = 64
  var baselineOps = 500
  var inMemory = false
}

struct StoreBenchResult {
  var options: StoreBenchOptions
  var seconds: Double
  var statistics: StoreStatistics
  var medianLatencyMicroseconds: Double
  var p99LatencyMicroseconds: Double

  var opsPerSecond: Double { Double(options.ops) / seconds }
  var opsPerCommit: Double { Double(statistics.ops) / Double(max(1, statistics.commits)) }
  var meanCommitMicroseconds: Double {
    Double(statistics.commitNanoseconds) / 1_000 / Double(max(1, statistics.commits))
  }

  static let header =
    "| run | ops | window | producers | durable ops/s | commits | ops/commit | mean txn µs | median append→durable µs | p99 µs |\n"
    + "|---|---|---|---|---|---|---|---|---|---|"

  func row(label: String) -> String {
    String(
      format: "| %@ | %d | %d | %d | %.0f | %d | %.1f | %.0f | %.0f | %.0f |", label, options.ops, options.window,
      options.producers, opsPerSecond, statistics.commits, opsPerCommit, meanCommitMicroseconds,
      medianLatencyMicroseconds, p99LatencyMicroseconds)
  }

  var json: String {
    String(
      format:
        "{\"ops\":%d,\"window\":%d,\"producers\":%d,\"opsPerSecond\":%.0f,\"commits\":%d,\"opsPerCommit\":%.1f,"
        + "\"meanCommitMicros\":%.0f,\"medianLatencyMicros\":%.0f,\"p99LatencyMicros\":%.0f}",
      options.ops, options.window, options.producers, opsPerSecond, statistics.commits, opsPerCommit,
      meanCommitMicroseconds, medianLatencyMicroseconds, p99LatencyMicroseconds)
  }
}

/// Start and end times per seq, written by producers and by the writer thread (distinct slots).
private final class LatencyLog: @unchecked Sendable {
  let start: UnsafeMutableBufferPointer<UInt64>
  let end: UnsafeMutableBufferPointer<UInt64>

  init(count: Int) {
    start = .allocate(capacity: count + 1)
    end = .allocate(capacity: count + 1)
    start.initialize(repeating: 0)
    end.initialize(repeating: 0)
  }

  deinit {
    start.deallocate()
    end.deallocate()
  }
}

/// Hands out room-wide seqs to concurrent producers.
private final class SeqCounter: @unchecked Sendable {
  private let lock = NSLock()
  private var next: UInt64 = 0
  private let limit: UInt64

  init(limit: Int) { self.limit = UInt64(limit) }

  func take() -> UInt64? {
    lock.lock()
    defer { lock.unlock() }
    guard next < limit else { return nil }
    next += 1
    return next
  }
}

private func measureStore(_ options: StoreBenchOptions) -> StoreBenchResult {
  let directory = (NSTemporaryDirectory() as NSString).appendingPathComponent(
    "reorder-store-bench-\(UUID().uuidString)")
  defer { try? FileManager.default.removeItem(atPath: directory) }
  let store: Store
  do {
    store = try Store(path: options.inMemory ? ":memory:" : directory)
  } catch {
    FileHandle.standardError.write(Data("reorder-bench store: \(error)\n".utf8))
    exit(1)
  }
  let log = LatencyLog(count: options.ops)
  let window = DispatchSemaphore(value: options.window)
  let done = DispatchSemaphore(value: 0)
  let seqs = SeqCounter(limit: options.ops)
  let payload = [UInt8](repeating: 0x42, count: options.payloadBytes)
  let remaining = SeqCounter(limit: options.ops)
  let began = DispatchTime.now().uptimeNanoseconds
  DispatchQueue.concurrentPerform(iterations: options.producers) { _ in
    while let seq = seqs.take() {
      window.wait()
      log.start[Int(seq)] = DispatchTime.now().uptimeNanoseconds
      store.append(room: "bench", ops: [StoredOp(seq: seq, payload: payload)]) { _ in
        log.end[Int(seq)] = DispatchTime.now().uptimeNanoseconds
        window.signal()
        if remaining.take() == UInt64(options.ops) { done.signal() }
      }
    }
  }
  done.wait()
  let seconds = Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9
  let statistics = store.statistics
  store.close()
  var latencies = (1...options.ops).map { Double(log.end[$0] &- log.start[$0]) / 1_000 }
  latencies.sort()
  return StoreBenchResult(
    options: options, seconds: seconds, statistics: statistics,
    medianLatencyMicroseconds: latencies[latencies.count / 2],
    p99LatencyMicroseconds: latencies[min(latencies.count - 1, latencies.count * 99 / 100)])
}
