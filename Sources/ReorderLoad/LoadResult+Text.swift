import Foundation

/// The plain-text report of one run, printed at its end.
extension LoadResult {
  /// Several lines: connect, drags, coverage, latency, staleness, moves, errors, processes.
  public var textReport: String {
    var lines: [String] = []
    let kind = mode == .mirror ? "lws-mirror-protocol" : "rooms protocol"
    var headline = "\(label): \(rooms) room\(rooms == 1 ? "" : "s") × \(clients) clients"
    if draggers > 0 { headline += ", \(draggers)\(ramp ? "+" : "") draggers × \(Self.number(dragRate))/s" }
    if moveRate > 0 { headline += ", \(Self.number(moveRate))\(ramp ? "+" : "") moves/s" }
    headline += String(format: ", %.1f s, %@ at %@", trafficSeconds, kind, url)
    if let clientIO { headline += " (\(clientIO) client)" }
    lines.append(headline)
    if !title.isEmpty { lines.append("  \(title)") }
    func row(_ name: String, _ value: String) {
      lines.append("  " + name.padding(toLength: 15, withPad: " ", startingAt: 0) + value)
    }
    row(
      "connect",
      "\(counters.connected) ready, \(counters.connectFailures) failed in \(String(format: "%.1f", connectSeconds)) s"
        + (settleSeconds.map { String(format: ", join traffic settled %.1f s later", $0) } ?? "") + "; "
        + Self.latency(connect))
    if let nodes, nodes.count > 1 {
      row("nodes", Self.nodeSplit(nodes))
    }
    if let join {
      row(
        "join",
        String(
          format: "%d welcomed: first attempt → last welcome %.2f s, first → last welcome %.2f s%@", join.connected,
          join.joinSeconds, join.spanSeconds,
          join.connectRate > 0 ? String(format: " (attempts paced at %.0f/s)", join.connectRate) : "")
          + "; roster frames received (peer, peers) \(counters.peerFrames)")
    }
    if let seeding {
      row(
        "seeding",
        String(
          format: "%d ops applied in %.1f s (%.0f ops/s)", seeding.opsApplied, seeding.seconds,
          Double(seeding.opsApplied) / max(0.001, seeding.seconds)))
    }
    if let loader {
      row(
        "loader",
        String(format: "room %@ every %.0f ms: ", loader.room, loader.intervalMilliseconds)
          + "\(loader.joins) joins, \(loader.welcomed) welcomed, \(loader.failed) failed, \(loader.skipped) turns skipped; "
          + String(format: "welcome of %.0f KB; join → welcome ", Double(loader.largestWelcomeBytes) / 1024)
          + Self.latency(loader.welcomeLatency))
    }
    if counters.dragUpdatesSent > 0 {
      row(
        "drag updates",
        "sent \(counters.dragUpdatesSent); offered \(Self.rate(offeredPerSecond)) deliveries/s; delivered "
          + "\(Self.rate(deliveredPerSecond))/s in \(Self.rate(framesPerSecond)) frames/s")
      let expected = Double(max(1, counters.dragUpdatesExpected))
      row(
        "coverage",
        String(format: "%.2f%%", 100 * coverage)
          + (coverageWindowMilliseconds.map { String(format: " within %.0f ms", $0) } ?? "")
          + " (\(Self.rate(coveredPerSecond)) covered/s; "
          + String(
            format: "late %.2f%%, lost %.2f%%", 100 * Double(counters.dragUpdatesLate) / expected,
            100 * Double(counters.dragUpdatesLost) / expected)
          + "); duplicates \(counters.dragDuplicates), out of order \(counters.dragOutOfOrder); "
          + "ends \(counters.dragEndsDelivered)/\(counters.dragEndsExpected)")
      row("drag latency", Self.latency(dragLatency))
      if let crossNodeDragLatency {
        row("across nodes", Self.latency(crossNodeDragLatency) + " (dragger and receiver on different nodes)")
      }
      row("staleness", Self.latency(staleness))
      if let receiverSilence, receiverSilence.count > 0 {
        row("max silence", Self.latency(receiverSilence) + " (per receiver, without a drag frame)")
      }
      if let slowReaders { lines += Self.slowReaderRows(slowReaders) }
    }
    if counters.movesSent > 0 {
      row(
        "moves",
        "sent \(counters.movesSent), acked \(counters.movesAcknowledged) (\(Self.rate(acknowledgedPerSecond))/s); "
          + "applied at others \(counters.movesAppliedRemote); seq gaps \(counters.appliedGaps), "
          + "duplicates \(counters.appliedDuplicates)")
      row("ack latency", Self.latency(ackLatency))
      row("at others", Self.latency(remoteApplyLatency))
    }
    row(
      "errors",
      "rejected \(counters.rejected), error frames \(counters.errors), closed during run \(counters.unexpectedCloses)")
    if let server {
      // After seeding, the growth is the boards the server now holds, not the connections.
      let perConnection =
        seeding != nil
        ? String(
          format: "%.1f MB more with the seeded rooms loaded",
          Double(server.rssIdleBytes - server.rssBeforeBytes) / 1_048_576)
        : server.bytesPerIdleConnection > 0
          ? String(format: "%.1f KB per idle connection", server.bytesPerIdleConnection / 1024)
          : "RSS did not grow with the connections (a server that already held more memory)"
      row(
        "server",
        String(
          format:
            "CPU %.0f%% (peak %.0f%%), waiting for a CPU %.0f%%; RSS %.1f MB before → %.1f MB idle → %.1f MB peak; %@",
          server.cpuPercent, server.peakCPUPercent, server.runQueueWaitPercent,
          Double(server.rssBeforeBytes) / 1_048_576,
          Double(server.rssIdleBytes) / 1_048_576, Double(server.rssPeakBytes) / 1_048_576, perConnection))
    }
    if let loadClient {
      row(
        "load tool",
        String(
          format: "CPU %.0f%% (peak %.0f%%), waiting for a CPU %.0f%%", loadClient.cpuPercent,
          loadClient.peakCPUPercent, loadClient.runQueueWaitPercent))
    }
    if !steps.isEmpty {
      let header = ["draggers", "moves/s", "offered/s", "delivered/s", "covered/s", "acked/s", "drag p99", "ack p99"]
      row("ramp", Self.columns(header))
      for step in steps {
        let cells = [
          String(step.draggers), Self.rate(step.moveRate), Self.rate(step.offeredPerSecond),
          Self.rate(step.deliveredPerSecond), Self.rate(step.coveredPerSecond), Self.rate(step.acknowledgedPerSecond),
          Self.milliseconds(step.dragP99) + " ms", Self.milliseconds(step.ackP99) + " ms",
        ]
        row("", Self.columns(cells) + (step == best ? "  ← max" : ""))
      }
    }
    if !loadAverage.isEmpty {
      row(
        "machine load",
        loadAverage.map { String(format: "%.1f", $0) }.joined(separator: " → ")
          + " (1-min load average at start → end; above the core count, figures are noisy)")
    }
    for note in notes { row("note", note) }
    return lines.joined(separator: "\n")
  }

  /// "ws://127.0.0.1:1 500 clients (500 ready), ws://127.0.0.1:2 …": the spread over `--url`.
  /// The slow readers' rows; the rows above them are the other clients'.
  static func slowReaderRows(_ slow: SlowReaderSummary) -> [String] {
    let closed = slow.closedByCode.sorted { $0.key < $1.key }.map { "\($0.value) with \($0.key)" }
    return [
      "  slow readers   \(slow.clients) reading at most \(slow.bytesPerSecond) B/s (the rows above are the other "
        + "\(slow.otherClients) clients')",
      "    frames       "
        + String(
          format: "%.1f drags frames/s per slow client (others %.1f), %.1f updates/s, %.0f B/s read; %d pauses",
          slow.framesPerSecondPerClient, slow.otherFramesPerSecondPerClient, slow.updatesPerSecondPerClient,
          slow.bytesPerSecondPerClient, slow.pauses),
      "    update age   " + latency(slow.dragAge),
      "    closed       " + (closed.isEmpty ? "none" : closed.joined(separator: ", "))
        + slow.closes.sorted { $0.key < $1.key }.map { " [\($0.key) × \($0.value)]" }.joined(),
    ]
  }

  static func nodeSplit(_ nodes: [NodeShare]) -> String {
    nodes.map { "\($0.url) \($0.clients) clients (\($0.connected) ready)" }.joined(separator: ", ")
  }

  /// Right-aligns cells in 12-character columns.
  static func columns(_ cells: [String]) -> String {
    cells.map { String(repeating: " ", count: max(0, 12 - $0.count)) + $0 }.joined()
  }

  static func latency(_ summary: LatencySummary) -> String {
    guard summary.count > 0 else { return "no samples" }
    return String(
      format: "p50 %@ ms, p90 %@ ms, p99 %@ ms, max %@ ms (n=%llu)", milliseconds(summary.p50),
      milliseconds(summary.p90), milliseconds(summary.p99), milliseconds(summary.max), summary.count)
  }

  static func milliseconds(_ value: Double) -> String {
    value < 10 ? String(format: "%.1f", value) : String(format: "%.0f", value)
  }

  static func rate(_ value: Double) -> String { ProgressPrinter.rate(value) }

  static func number(_ value: Double) -> String {
    value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
  }

  /// The JSON encoding (pretty, sorted keys).
  public func jsonData() throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    return try encoder.encode(self)
  }
}
