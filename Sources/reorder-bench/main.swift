#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `reorder-bench crdt [--json]`: the CRDT benchmark of docs/CRDT.md (a table, or one JSON object).
/// `reorder-bench crdt --only local|remote|load`: runs one phase alone, without the checks, for a
/// profiler (`valgrind --tool=callgrind`).
/// `reorder-bench redis …`: cluster mode's Redis costs (RedisBench.swift, docs/CLUSTER.md).
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "redis" { runRedisBenchmark(arguments: Array(arguments.dropFirst())) }
let json = arguments.contains("--json")
let onlyIndex = arguments.firstIndex(of: "--only")
let only = onlyIndex.flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
let names = arguments.enumerated().filter { !$0.element.hasPrefix("--") && $0.offset != onlyIndex.map { $0 + 1 } }
  .map(\.element)

guard names == ["crdt"], onlyIndex == nil || ["local", "remote", "load"].contains(only ?? "") else {
  print("usage: reorder-bench crdt [--json] [--only local|remote|load] | reorder-bench redis [options]")
  exit(2)
}

if let only {
  print(CRDTBench.profile(only))
  exit(0)
}

let r = CRDTBench.run()
let rows: [(String, String, String)] = [
  (
    "remote_ops_per_s", String(Int(r.remoteOpsPerSecond)),
    "decode + apply one binary move (target ≥ 400000), best of \(CRDTBench.repeats)"
  ),
  ("local_ops_per_s", String(Int(r.localOpsPerSecond)), "intent → op → apply (target ≥ 1000000)"),
  ("merge_seconds", String(r.mergeSeconds), "2 × 50,000 offline moves exchanged (target < 0.5)"),
  ("snapshot_bytes", String(r.snapshotBytes), "after 100,000 moves (target ≤ 800000)"),
  ("snapshot_load_ms", String(r.snapshotLoadMilliseconds), "best of \(CRDTBench.repeats * 5) loads (target < 10)"),
  ("bytes_per_move", String(r.bytesPerMove), "encoded move (target ≤ 32)"),
  ("peak_rss_bytes", String(r.peakRSSBytes), "whole run"),
]
if json {
  print("{" + rows.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}")
} else {
  print("reorder-bench crdt: \(CRDTBench.itemCount) items, \(CRDTBench.moveCount) random moves, seed \(CRDTBench.seed)")
  for (name, value, note) in rows {
    print(name.padding(18) + value.padding(22) + note)
  }
}

extension String {
  func padding(_ width: Int) -> String {
    count >= width ? self + " " : self + String(repeating: " ", count: width - count)
  }
}
