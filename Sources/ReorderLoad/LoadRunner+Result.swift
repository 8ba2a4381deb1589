/// Turning the merged measurements into a `LoadResult`.
extension LoadRunner {
  func makeResult(
    measurements: Measurements, traffic: Timeline, startedAt: String, connectSeconds: Double,
    serverBefore: ProcessSample?, serverIdle: ProcessSample?, selfBefore: ProcessSample?
  ) -> LoadResult {
    let counters = measurements.counters
    let seconds = max(0.001, Double(traffic.end - traffic.origin) / 1e6)
    let edges = LoadResult.plotEdges
    let receivers = Double(plan.receivers(of: 0))
    var notes = notes
    if counters.connectFailures > 0 { notes.append("\(counters.connectFailures) connections failed") }
    if counters.unexpectedCloses > 0 { notes.append("\(counters.unexpectedCloses) connections closed during the run") }
    for (reason, count) in measurements.closeReasons.sorted(by: { $0.value > $1.value }).prefix(3) {
      notes.append("closed: \(reason) × \(count)")
    }
    let sampled = configuration.measureStride > 1
    if sampled {
      notes.append(
        "drag updates accounted at every \(configuration.measureStride)th client only (--measure-receivers): "
          + "offered, delivered, covered, latency, staleness and silence are those receivers'")
    }
    if configuration.rooms > 1 && configuration.clients % configuration.rooms != 0 {
      notes.append("rooms have unequal sizes; offered rates assume the first room's size")
    }
    // Plots and per-second figures cover whole seconds of traffic only (the last partial second
    // and the drain would show as a dip).
    var series = measurements.series
    let whole = max(1, Int(seconds))
    for path in [
      \ThroughputSeries.dragUpdatesSent, \.dragUpdatesDelivered, \.dragUpdatesCovered, \.dragFrames, \.movesSent,
      \.movesAcknowledged, \.errors,
    ] where series[keyPath: path].count > whole {
      series[keyPath: path].removeLast(series[keyPath: path].count - whole)
    }
    let steps = configuration.ramp ? rampSteps(measurements, traffic: traffic, receivers: receivers) : []
    // The maximum of a ramp: acknowledged moves/s; covered drag updates/s for Reorder (what users
    // get from coalesced frames); delivered messages/s for the mirror (what it does: relay).
    let best = steps.max {
      if configuration.moveRate > 0 { return $0.acknowledgedPerSecond < $1.acknowledgedPerSecond }
      if configuration.mode == .mirror { return $0.deliveredPerSecond < $1.deliveredPerSecond }
      return $0.coveredPerSecond < $1.coveredPerSecond
    }
    var result = LoadResult(
      label: configuration.label, title: configuration.title, mode: configuration.mode, url: origins,
      clients: configuration.clients, rooms: configuration.rooms, draggers: plan.initialDraggers.count,
      dragRate: configuration.dragRate, moveRate: configuration.moveRate, ramp: configuration.ramp,
      startedAt: startedAt, trafficSeconds: seconds, connectSeconds: connectSeconds, counters: counters,
      connect: LatencySummary(measurements.connectLatency), dragLatency: LatencySummary(measurements.dragLatency),
      staleness: LatencySummary(measurements.staleness),
      receiverSilence: LatencySummary(measurements.receiverSilence),
      ackLatency: LatencySummary(measurements.ackLatency),
      remoteApplyLatency: LatencySummary(measurements.remoteApplyLatency),
      // Sampled receivers: what was due at them (updates sent × measured receivers of the room).
      offeredPerSecond: sampled
        ? Double(counters.dragUpdatesExpected) / seconds : Double(counters.dragUpdatesSent) * receivers / seconds,
      deliveredPerSecond: Double(counters.dragUpdatesDelivered) / seconds,
      coveredPerSecond: Double(counters.dragUpdatesCovered) / seconds,
      framesPerSecond: Double(counters.dragFrames) / seconds,
      coverage: counters.dragUpdatesExpected == 0
        ? 1 : Double(counters.dragUpdatesCovered) / Double(counters.dragUpdatesExpected),
      acknowledgedPerSecond: Double(counters.movesAcknowledged) / seconds, series: series,
      dragP99PerSecond: measurements.dragLatencyPerSecond.prefix(whole).map { Double($0.percentile(0.99)) / 1000 },
      ackP99PerSecond: measurements.ackLatencyPerSecond.prefix(whole).map { Double($0.percentile(0.99)) / 1000 },
      dragLatencyEdgesMs: edges.map { Double($0) / 1000 },
      dragLatencyCounts: measurements.dragLatency.binned(edges: edges),
      ackLatencyCounts: measurements.ackLatency.binned(edges: edges),
      server: serverBefore.map {
        Self.usage(before: $0, idle: serverIdle, samples: traffic.serverSamples, clients: max(1, counters.connected))
      },
      loadClient: selfBefore.map {
        Self.usage(before: $0, idle: nil, samples: traffic.selfSamples, clients: max(1, counters.connected))
      },
      steps: steps, best: best, notes: notes, nodes: nodeShares(measurements),
      crossNodeDragLatency: targets.count > 1 ? LatencySummary(measurements.crossNodeDragLatency) : nil)
    // Slow readers read on through the drain what was queued for them: their rates, and the
    // others' frames beside them, are over the traffic and the drain.
    let read = max(0.001, Double(max(traffic.end, traffic.drainEnd) - traffic.origin) / 1e6)
    result.slowReaders = slowReaderSummary(measurements, seconds: read)
    return result
  }

  /// The slow readers' figures beside the others', with `--slow-readers`; rates are per `seconds`.
  func slowReaderSummary(_ measurements: Measurements, seconds: Double) -> SlowReaderSummary? {
    let slow = measurements.slow
    let count = plan.slowReaders.count
    guard count > 0 else { return nil }
    let others = max(1, configuration.clients - count)
    var byCode: [String: Int] = [:]
    for (key, closed) in slow.closes {
      let code = key.hasPrefix("no close frame") ? "none" : String(key.prefix { $0 != " " })
      byCode[code, default: 0] += closed
    }
    return SlowReaderSummary(
      clients: count, bytesPerSecond: configuration.slowReadBytesPerSecond, otherClients: others,
      framesPerSecondPerClient: Double(slow.dragFrames) / seconds / Double(count),
      otherFramesPerSecondPerClient: Double(measurements.counters.dragFrames - slow.dragFrames) / seconds
        / Double(others),
      updatesPerSecondPerClient: Double(slow.dragUpdates) / seconds / Double(count),
      bytesPerSecondPerClient: Double(slow.bytes) / seconds / Double(count), dragAge: LatencySummary(slow.dragAge),
      pauses: slow.pauses, closes: slow.closes, closedByCode: byCode)
  }

  /// How many clients went to each node of `--url`, and how many of them got in.
  func nodeShares(_ measurements: Measurements) -> [NodeShare] {
    targets.enumerated().map { node, target in
      NodeShare(
        url: target.origin, clients: plan.clientsPerNode[node], connected: measurements.connectedPerNode[node] ?? 0)
    }
  }

  /// Per-step figures from the per-second series; a step's first second is skipped (transient)
  /// when the step is longer than a second.
  func rampSteps(_ measurements: Measurements, traffic: Timeline, receivers: Double) -> [RampStep] {
    let lastSecond = Int(Double(traffic.end - traffic.origin) / 1e6)
    var steps: [RampStep] = []
    for (index, step) in traffic.steps.enumerated() {
      let to = index + 1 < traffic.steps.count ? traffic.steps[index + 1].from : lastSecond
      let from = to - step.from > 1 ? step.from + 1 : step.from
      guard to > from else { continue }
      let span = Double(to - from)
      func sum(_ values: [Int]) -> Double {
        Double((from..<to).reduce(0) { $0 + ($1 < values.count ? values[$1] : 0) })
      }
      var drag = LatencyHistogram()
      var ack = LatencyHistogram()
      for second in from..<to {
        if second < measurements.dragLatencyPerSecond.count { drag.merge(measurements.dragLatencyPerSecond[second]) }
        if second < measurements.ackLatencyPerSecond.count { ack.merge(measurements.ackLatencyPerSecond[second]) }
      }
      let series = measurements.series
      steps.append(
        RampStep(
          draggers: step.draggers, moveRate: step.moveRate, fromSecond: from, toSecond: to,
          offeredPerSecond: sum(series.dragUpdatesSent) * receivers / span,
          deliveredPerSecond: sum(series.dragUpdatesDelivered) / span,
          coveredPerSecond: sum(series.dragUpdatesCovered) / span,
          acknowledgedPerSecond: sum(series.movesAcknowledged) / span,
          dragP50: Double(drag.percentile(0.50)) / 1000, dragP99: Double(drag.percentile(0.99)) / 1000,
          ackP99: Double(ack.percentile(0.99)) / 1000, ackP50: Double(ack.percentile(0.50)) / 1000))
    }
    return steps
  }

  static func usage(before: ProcessSample, idle: ProcessSample?, samples: [ProcessSample], clients: Int)
    -> ProcessUsage
  {
    var perSecond: [Double] = []
    var previous = idle ?? before
    for sample in samples {
      let wall = Double(sample.time - previous.time) / 1e6
      if wall > 0 { perSecond.append(100 * (sample.cpuSeconds - previous.cpuSeconds) / wall) }
      previous = sample
    }
    let first = samples.first ?? before
    let last = samples.last ?? before
    let wall = Double(last.time - first.time) / 1e6
    let average = wall > 0 ? 100 * (last.cpuSeconds - first.cpuSeconds) / wall : 0
    let idleBytes = idle?.rssBytes ?? before.rssBytes
    let waited = wall > 0 ? 100 * (last.runQueueSeconds - first.runQueueSeconds) / wall : 0
    var usage = ProcessUsage(
      cpuPercent: average, peakCPUPercent: perSecond.max() ?? 0, rssBeforeBytes: before.rssBytes,
      rssIdleBytes: idleBytes, rssPeakBytes: ([before.rssBytes, idleBytes] + samples.map(\.rssBytes)).max() ?? 0,
      bytesPerIdleConnection: Double(idleBytes - before.rssBytes) / Double(max(1, clients)),
      cpuPercentPerSecond: perSecond, rssBytesPerSecond: samples.map(\.rssBytes))
    usage.runQueueWaitPercent = waited
    return usage
  }
}
