import Foundation

extension LoadReport {
  /// The table of the cluster runs (g, h, h-ramp and their one-node twins) against the targets of
  /// issue 14, then the ratios cluster ÷ one node; empty when none ran.
  var clusterTargetsMarkdown: String {
    guard let figures = cluster else { return "" }
    let byLabel = Dictionary(runs.map { ($0.label, $0) }, uniquingKeysWith: { first, _ in first })
    var lines: [String] = [
      "",
      "| run | scenario | nodes: clients (ready) | coverage (≥ 99.5%) | drag p99 ms (≤ 100) | across nodes p99 ms "
        + "| ack p99 ms (< 20) | durable moves/s (ramp ≥ 10,000) |",
      "|---|---|---|--:|--:|--:|--:|--:|",
    ]
    for base in ClusterFigures.clusterLabels {
      for label in [base, base + ClusterFigures.oneNodeSuffix] {
        guard let run = byLabel[label] else { continue }
        lines.append("| " + Self.clusterCells(run, base: base).joined(separator: " | ") + " |")
      }
    }
    var ratios: [String] = []
    func add(_ name: String, _ value: Double?) {
      if let value { ratios.append(name + " " + String(format: "%.2f×", value)) }
    }
    add("g coverage", figures.coverageRatio)
    add("g drag p99", figures.dragP99Ratio)
    add("h ack p99", figures.ackP99Ratio)
    add("h-ramp durable moves/s", figures.durableMovesRatio)
    if !ratios.isEmpty {
      lines.append("")
      lines.append("Cluster ÷ one node: " + ratios.joined(separator: "; ") + ".")
    }
    return lines.joined(separator: "\n")
  }

  /// One row: the figures of `run`'s scenario (`base`) marked against their targets, "–" elsewhere.
  static func clusterCells(_ run: LoadResult, base: String) -> [String] {
    let nodes =
      run.nodes.map { shares in
        shares.map { "\($0.clients) (\($0.connected))" }.joined(separator: " + ")
      } ?? String(run.clients)
    var coverage = "–"
    var drag = "–"
    var across = "–"
    var ack = "–"
    var moves = "–"
    switch base {
    case "g":
      coverage = mark(String(format: "%.2f%%", 100 * run.coverage), run.coverage >= ClusterFigures.coverageTarget)
      drag = mark(
        LoadResult.milliseconds(run.dragLatency.p99), run.dragLatency.p99 <= ClusterFigures.dragP99Target)
      if let latency = run.crossNodeDragLatency, latency.count > 0 { across = LoadResult.milliseconds(latency.p99) }
    case "h":
      ack = mark(LoadResult.milliseconds(run.ackLatency.p99), run.ackLatency.p99 < ClusterFigures.ackP99Target)
      moves = ProgressPrinter.rate(run.acknowledgedPerSecond)
    default:
      let durable = ClusterFigures.durableMoves(run)
      moves = mark(ProgressPrinter.rate(durable), durable >= ClusterFigures.durableMovesTarget)
      ack = run.best.map { LoadResult.milliseconds($0.ackP99) } ?? "–"
    }
    return [run.label, run.title, nodes, coverage, drag, across, ack, moves]
  }
}
