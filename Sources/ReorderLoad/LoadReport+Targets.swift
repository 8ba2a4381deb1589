import Foundation

/// The scale runs read against their targets (docs/LOAD.md, "Rooms of 10,000, join cost and load
/// isolation"): a room of 10,000 (`f`), the cost of joining one big room against many small ones
/// (`join-*`), and whether loading a big board holds up another room (`iso-off-N` without the
/// loader, `iso-on-N` with it).
public struct ScaleFigures: Sendable, Codable, Equatable {
  /// Join time (first attempt → last welcome) of the one-room run ÷ that of the many-room run
  /// with the same number of clients (target ≤ 2).
  public var joinRatio: Double?
  /// The join runs compared: one room, many rooms.
  public var joinPair: [String]?
  /// Mean drag p99 of the runs with the loader ÷ without it (target ≤ 1.1).
  public var isolationRatio: Double?
  /// Drag p99 (ms) per round without and with the loader, in round order.
  public var isolationWithout: [Double] = []
  public var isolationWith: [Double] = []

  /// The targets the scale runs are read against: join and isolation ratios, the join span (s),
  /// coverage, staleness (ms) and memory per connection (bytes) of the room of 10,000.
  public static let joinRatioTarget = 2.0
  public static let isolationRatioTarget = 1.1
  public static let spanTarget = 10.0
  public static let coverageTarget = 0.99
  public static let stalenessTarget = 300.0
  public static let bytesPerConnectionTarget = 10.0 * 1024

  /// Reads the figures from `runs` (labels as in scripts/load.sh).
  init(runs: [LoadResult]) {
    let joins = runs.filter { $0.label.hasPrefix("join-") && $0.join != nil }
    if let one = joins.first(where: { $0.rooms == 1 }),
      let many = joins.filter({ $0.rooms > 1 && $0.clients == one.clients }).max(by: { $0.rooms < $1.rooms }),
      let oneJoin = one.join, let manyJoin = many.join, manyJoin.joinSeconds > 0
    {
      joinRatio = oneJoin.joinSeconds / manyJoin.joinSeconds
      joinPair = [one.label, many.label]
    }
    func round(_ label: String, _ prefix: String) -> Int? {
      label.hasPrefix(prefix) ? Int(label.dropFirst(prefix.count)) : nil
    }
    let off = runs.compactMap { run in round(run.label, "iso-off-").map { ($0, run.dragLatency.p99) } }.sorted {
      $0.0 < $1.0
    }
    let on = runs.compactMap { run in round(run.label, "iso-on-").map { ($0, run.dragLatency.p99) } }.sorted {
      $0.0 < $1.0
    }
    isolationWithout = off.map(\.1)
    isolationWith = on.map(\.1)
    if !off.isEmpty, !on.isEmpty {
      let without = isolationWithout.reduce(0, +) / Double(off.count)
      let with = isolationWith.reduce(0, +) / Double(on.count)
      if without > 0 { isolationRatio = with / without }
    }
  }
}

extension LoadReport {
  /// Markdown tables for `f`, the join runs, the isolation rounds and the cluster runs g and h
  /// (empty when none ran).
  var targetsMarkdown: String {
    var lines: [String] = []
    let figures = ScaleFigures(runs: runs)
    for run in runs where run.label == "f" || run.label.hasPrefix("f-") {
      lines.append("")
      lines.append(
        "| run | scenario | welcomed | first → last welcome s (≤ 10) | coverage within \(Self.window(run)) ms (≥ 99%) "
          + "| stale p99 ms (≤ 300) | server KB per connection (≤ 10) | roster frames | server RSS before → all connected |"
      )
      lines.append("|---|---|--:|--:|--:|--:|--:|--:|--:|")
      let connected = run.join?.connected ?? run.counters.connected
      var span = "–"
      if let seconds = run.join?.spanSeconds {
        span = Self.mark(String(format: "%.1f", seconds), seconds <= ScaleFigures.spanTarget)
      }
      let coverage = Self.mark(
        String(format: "%.2f%%", 100 * run.coverage), run.coverage >= ScaleFigures.coverageTarget)
      let stale = Self.mark(
        LoadResult.milliseconds(run.staleness.p99), run.staleness.p99 <= ScaleFigures.stalenessTarget)
      var perConnection = "–"
      var rss = "–"
      if let server = run.server {
        let bytes = server.bytesPerIdleConnection
        perConnection = Self.mark(String(format: "%.1f", bytes / 1024), bytes <= ScaleFigures.bytesPerConnectionTarget)
        rss = String(
          format: "%.1f → %.1f MB", Double(server.rssBeforeBytes) / 1_048_576, Double(server.rssIdleBytes) / 1_048_576)
      }
      let cells: [String] = [
        run.label, run.title, "\(connected) of \(run.clients)", span, coverage, stale, perConnection,
        String(run.counters.peerFrames), rss,
      ]
      lines.append("| " + cells.joined(separator: " | ") + " |")
    }
    let joins = runs.filter { $0.label.hasPrefix("join-") }
    if !joins.isEmpty {
      lines.append("")
      lines.append(
        "| run | scenario | welcomed | first attempt → last welcome s | first → last welcome s | connect p50 ms "
          + "| connect p99 ms | roster frames | settled after s |")
      lines.append("|---|---|--:|--:|--:|--:|--:|--:|--:|")
      for run in joins {
        let cells = [
          run.label, run.title, "\(run.join?.connected ?? run.counters.connected) of \(run.clients)",
          run.join.map { String(format: "%.2f", $0.joinSeconds) } ?? "–",
          run.join.map { String(format: "%.2f", $0.spanSeconds) } ?? "–", LoadResult.milliseconds(run.connect.p50),
          LoadResult.milliseconds(run.connect.p99), String(run.counters.peerFrames),
          run.settleSeconds.map { String(format: "%.1f", $0) } ?? "–",
        ]
        lines.append("| " + cells.joined(separator: " | ") + " |")
      }
      if let ratio = figures.joinRatio, let pair = figures.joinPair {
        lines.append("")
        lines.append(
          "Join ratio (\(pair[0]) ÷ \(pair[1])): "
            + Self.mark(String(format: "%.2f×", ratio), ratio <= ScaleFigures.joinRatioTarget) + " (target ≤ 2×).")
      }
    }
    let rounds = max(figures.isolationWithout.count, figures.isolationWith.count)
    if rounds > 0 {
      lines.append("")
      lines.append(
        "| round | drag p99 ms without the loader | drag p99 ms with it | with ÷ without | loader joins welcomed "
          + "| loader join → welcome p50 / p99 ms | turns skipped |")
      lines.append("|---|--:|--:|--:|--:|--:|--:|")
      for index in 0..<rounds {
        let without = index < figures.isolationWithout.count ? figures.isolationWithout[index] : nil
        let with = index < figures.isolationWith.count ? figures.isolationWith[index] : nil
        let loader = runs.first { $0.label == "iso-on-\(index + 1)" }?.loader
        var ratio = "–"
        if let without, let with, without > 0 { ratio = String(format: "%.2f×", with / without) }
        var welcomed = "–"
        var welcomeLatency = "–"
        var skipped = "–"
        if let loader {
          welcomed = "\(loader.welcomed) of \(loader.joins)"
          welcomeLatency =
            LoadResult.milliseconds(loader.welcomeLatency.p50) + " / "
            + LoadResult.milliseconds(loader.welcomeLatency.p99)
          skipped = String(loader.skipped)
        }
        let cells: [String] = [
          String(index + 1), without.map(LoadResult.milliseconds) ?? "–", with.map(LoadResult.milliseconds) ?? "–",
          ratio, welcomed, welcomeLatency, skipped,
        ]
        lines.append("| " + cells.joined(separator: " | ") + " |")
      }
      if let ratio = figures.isolationRatio {
        lines.append("")
        lines.append(
          "Isolation (mean drag p99 with the loader ÷ without): "
            + Self.mark(String(format: "%.2f×", ratio), ratio <= ScaleFigures.isolationRatioTarget)
            + " (target ≤ 1.10×).")
      }
    }
    let cluster = clusterTargetsMarkdown
    if !cluster.isEmpty { lines.append(cluster) }
    return lines.joined(separator: "\n")
  }

  static func window(_ run: LoadResult) -> String {
    LoadResult.number(run.coverageWindowMilliseconds ?? 100)
  }

  /// "12.3 ✓" or "12.3 ✗": a figure and whether it meets its target.
  static func mark(_ text: String, _ met: Bool) -> String { text + (met ? " ✓" : " ✗") }
}
