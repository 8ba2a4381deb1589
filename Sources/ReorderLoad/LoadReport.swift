import Foundation

/// Several runs side by side: each Reorder run with its `lws-mirror-protocol` twin (label
/// `<label>-mirror`), as ratios. What `--summarize` prints and writes.
public struct LoadReport: Sendable, Codable, Equatable {
  /// One scenario with its baseline.
  public struct Comparison: Sendable, Codable, Equatable {
    public var label: String
    /// Drag updates covered per second (ours; the best ramp step when ramped).
    public var coveredPerSecond: Double
    public var deliveredPerSecond: Double
    public var offeredPerSecond: Double
    public var coverage: Double
    public var dragP50: Double
    public var dragP99: Double
    /// Staleness p99 (nil for a ramp: it is not tracked per step).
    public var stalenessP99: Double?
    public var lost: Int
    /// The mirror's deliveries per second, p99 and undelivered share, when there is a twin.
    public var mirrorDeliveredPerSecond: Double?
    public var mirrorOfferedPerSecond: Double?
    public var mirrorP99: Double?
    public var mirrorUndelivered: Double?
    /// ours covered/s ÷ mirror delivered/s (target ≥ 1).
    public var throughputRatio: Double?
    /// mirror p99 ÷ ours p99 (target ≥ 1: ours no higher).
    public var latencyRatio: Double?
    /// Server CPU and run-queue wait (% of wall time), ours then the mirror's.
    public var serverCPU: Double?
    public var serverWait: Double?
    public var mirrorCPU: Double?
    public var mirrorWait: Double?
  }

  public var generatedAt: String
  public var runs: [LoadResult]
  public var comparisons: [Comparison]
  /// The join ratio and the isolation rounds (`ScaleFigures`), when those runs are among `runs`.
  public var scale: ScaleFigures
  /// The cluster runs of issue 14 (`ClusterFigures`), when any is among `runs`.
  public var cluster: ClusterFigures?

  /// Pairs every non-mirror run with the mirror run labelled `<label>-mirror`, if any.
  public init(runs: [LoadResult]) {
    generatedAt = ISO8601DateFormatter().string(from: Date())
    // Each run right before its mirror twin: "a" < "a-mirror" < "b"; "e" < "e-ramp".
    self.runs = runs.sorted { Self.sortKey($0.label) < Self.sortKey($1.label) }
    let runs = self.runs
    scale = ScaleFigures(runs: runs)
    cluster = ClusterFigures(runs: runs)
    let byLabel = Dictionary(runs.map { ($0.label, $0) }, uniquingKeysWith: { first, _ in first })
    comparisons = runs.filter { $0.mode == .reorder && $0.counters.dragUpdatesSent > 0 }.map { ours in
      let mirror = byLabel[ours.label + "-mirror"]
      let oursFigures = Self.figures(ours)
      var comparison = Comparison(
        label: ours.label, coveredPerSecond: oursFigures.covered, deliveredPerSecond: oursFigures.delivered,
        offeredPerSecond: oursFigures.offered,
        // Per step, covered updates count at their arrival second and offered ones at their send
        // second, so a step's ratio can pass 1 by the edges: cap it.
        coverage: ours.best.map { $0.offeredPerSecond > 0 ? min(1, $0.coveredPerSecond / $0.offeredPerSecond) : 0 }
          ?? ours.coverage,
        dragP50: ours.best?.dragP50 ?? ours.dragLatency.p50, dragP99: oursFigures.p99,
        stalenessP99: ours.best == nil ? ours.staleness.p99 : nil, lost: ours.counters.dragUpdatesLost)
      comparison.serverCPU = ours.server?.cpuPercent
      comparison.serverWait = ours.server?.runQueueWaitPercent
      if let mirror {
        comparison.mirrorCPU = mirror.server?.cpuPercent
        comparison.mirrorWait = mirror.server?.runQueueWaitPercent
        let theirs = Self.figures(mirror)
        comparison.mirrorDeliveredPerSecond = theirs.delivered
        comparison.mirrorOfferedPerSecond = theirs.offered
        comparison.mirrorP99 = theirs.p99
        comparison.mirrorUndelivered =
          theirs.offered > 0
          ? max(0, 1 - theirs.delivered / theirs.offered)
          : max(
            0, 1 - Double(mirror.counters.dragUpdatesDelivered) / Double(max(1, mirror.counters.dragUpdatesExpected)))
        comparison.throughputRatio = theirs.delivered > 0 ? oursFigures.covered / theirs.delivered : nil
        comparison.latencyRatio = oursFigures.p99 > 0 ? theirs.p99 / oursFigures.p99 : nil
      }
      return comparison
    }
  }

  static func sortKey(_ label: String) -> String {
    label == "idle" ? "" : label.replacingOccurrences(of: "-", with: "~")
  }

  /// Headline figures of a run: the best step when ramped, the whole run otherwise.
  static func figures(_ run: LoadResult) -> (offered: Double, delivered: Double, covered: Double, p99: Double) {
    if let best = run.best {
      return (best.offeredPerSecond, best.deliveredPerSecond, best.coveredPerSecond, best.dragP99)
    }
    return (run.offeredPerSecond, run.deliveredPerSecond, run.coveredPerSecond, run.dragLatency.p99)
  }

  /// Markdown tables: drags vs the mirror, committed moves, memory.
  public var markdown: String {
    var lines: [String] = []
    let titles = Dictionary(runs.map { ($0.label, $0.title) }, uniquingKeysWith: { first, _ in first })
    if !comparisons.isEmpty {
      lines.append(
        "| run | scenario | offered/s | delivered/s | covered/s | coverage | p50 ms | p99 ms | stale p99 ms "
          + "| mirror delivered/s | mirror p99 ms | mirror undelivered | covered ÷ mirror | mirror p99 ÷ ours "
          + "| server CPU / wait | mirror CPU / wait |")
      lines.append("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
      for row in comparisons {
        let cells = [
          row.label, titles[row.label] ?? "", rate(row.offeredPerSecond), rate(row.deliveredPerSecond),
          rate(row.coveredPerSecond), String(format: "%.2f%%", 100 * row.coverage), ms(row.dragP50), ms(row.dragP99),
          row.stalenessP99.map(ms) ?? "–", row.mirrorDeliveredPerSecond.map(rate) ?? "–", row.mirrorP99.map(ms) ?? "–",
          row.mirrorUndelivered.map { String(format: "%.1f%%", 100 * $0) } ?? "–",
          row.throughputRatio.map { String(format: "%.2f×", $0) } ?? "–",
          row.latencyRatio.map { String(format: "%.2f×", $0) } ?? "–",
          Self.cpu(row.serverCPU, row.serverWait), Self.cpu(row.mirrorCPU, row.mirrorWait),
        ]
        lines.append("| " + cells.joined(separator: " | ") + " |")
      }
    }
    let efficiency = comparisons.filter { ($0.serverCPU ?? 0) > 0 }
    if !efficiency.isEmpty {
      // On a shared machine the CPU a server gets varies run to run; work per CPU-second does not.
      lines.append("")
      lines.append(
        "| run | delivered per server CPU-s | covered per server CPU-s | mirror delivered per CPU-s "
          + "| delivered ÷ mirror, per CPU-s |")
      lines.append("|---|--:|--:|--:|--:|")
      for row in efficiency {
        let cpu = (row.serverCPU ?? 0) / 100
        let run = runs.first { $0.label == row.label }
        let delivered = (run?.deliveredPerSecond ?? 0) / cpu
        let covered = (run?.coveredPerSecond ?? 0) / cpu
        let mirrorRun = runs.first { $0.label == row.label + "-mirror" }
        let mirrorCPU = (row.mirrorCPU ?? 0) / 100
        let mirror = mirrorCPU > 0 ? (mirrorRun?.deliveredPerSecond ?? 0) / mirrorCPU : nil
        let cells = [
          row.label, rate(delivered), rate(covered), mirror.map(rate) ?? "–",
          mirror.map { $0 > 0 ? String(format: "%.2f×", delivered / $0) : "–" } ?? "–",
        ]
        lines.append("| " + cells.joined(separator: " | ") + " |")
      }
    }
    let movers = runs.filter { $0.counters.movesSent > 0 }
    if !movers.isEmpty {
      lines.append("")
      lines.append(
        "| run | scenario | moves/s offered | acked/s | ack p50 ms | ack p99 ms | at others p99 ms | unacked at end | seq gaps |"
      )
      lines.append("|---|---|--:|--:|--:|--:|--:|--:|--:|")
      for run in movers {
        let acked = run.best?.acknowledgedPerSecond ?? run.acknowledgedPerSecond
        let p99 = run.best?.ackP99 ?? run.ackLatency.p99
        let p50 = run.best?.ackP50 ?? run.ackLatency.p50
        let offered = run.best?.moveRate ?? run.moveRate
        let cells = [
          run.label, run.title, rate(offered), rate(acked), ms(p50), ms(p99),
          ms(run.remoteApplyLatency.p99), String(run.counters.movesSent - run.counters.movesAcknowledged),
          String(run.counters.appliedGaps),
        ]
        lines.append("| " + cells.joined(separator: " | ") + " |")
      }
    }
    let candidates = runs.filter { $0.server != nil && $0.mode == .reorder }
    let memory = candidates.first { $0.label == "idle" } ?? candidates.max { $0.clients < $1.clients }
    if let memory, let server = memory.server {
      lines.append("")
      lines.append(
        String(
          format: "Memory per idle connection (%@, %d clients): %.1f KB beyond the empty server (%.1f MB → %.1f MB).",
          memory.label, memory.clients, server.bytesPerIdleConnection / 1024, Double(server.rssBeforeBytes) / 1_048_576,
          Double(server.rssIdleBytes) / 1_048_576))
    }
    let targets = targetsMarkdown
    if !targets.isEmpty { lines.append(targets) }
    return lines.joined(separator: "\n")
  }

  /// "35% / 60%": CPU and run-queue wait in % of wall time.
  static func cpu(_ cpu: Double?, _ wait: Double?) -> String {
    guard let cpu else { return "–" }
    return String(format: "%.0f%% / %.0f%%", cpu, wait ?? 0)
  }

  private func rate(_ value: Double) -> String { ProgressPrinter.rate(value) }
  private func ms(_ value: Double) -> String { LoadResult.milliseconds(value) }

  /// Reads every `*.json` run result in `directory` (sorted by file name).
  public static func load(directory: String) throws -> [LoadResult] {
    let names: [String]
    do {
      names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }.sorted()
    } catch {
      throw LoadError.io("cannot list '\(directory)': \(error.localizedDescription)")
    }
    return try names.map { name in
      let path = directory + "/" + name
      guard let data = FileManager.default.contents(atPath: path) else { throw LoadError.io("cannot read '\(path)'") }
      do {
        return try JSONDecoder().decode(LoadResult.self, from: data)
      } catch {
        throw LoadError.io("'\(path)' is not a load result: \(error)")
      }
    }
  }

  /// The JSON encoding (pretty, sorted keys).
  public func jsonData() throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    return try encoder.encode(self)
  }
}
