import ReorderBasics

/// The traffic phase: drags and moves on schedule, ramp steps, progress, process samples.
extension LoadRunner {
  /// What the traffic phase did, for the result.
  struct Timeline {
    var origin: Int64 = 0
    var end: Int64 = 0
    /// When the drain after the traffic ended (µs; 0: no drain ran).
    var drainEnd: Int64 = 0
    var steps: [(from: Int, draggers: Int, moveRate: Double)] = []
    var serverSamples: [ProcessSample] = []
    var selfSamples: [ProcessSample] = []
  }

  /// A client sending on a schedule.
  struct Sender {
    var client: Int
    var period: Int64
    var due: Int64
    /// A dragger sends its drag's `start` at its first due time, then a `move` at each.
    var started = false
  }

  func runTraffic() -> Timeline {
    var timeline = Timeline()
    let origin = MonotonicClock.microseconds() + 20_000
    timeline.origin = origin
    for shard in shards {
      shard.context.post {
        shard.measurements.origin = origin
        shard.startThrottles(at: origin)
      }
    }
    let dragPeriod = Int64(1e6 / max(0.001, configuration.dragRate))
    var draggers: [Sender] = []
    var draggerCount = plan.initialDraggers.count
    func addDraggers(_ list: some Sequence<Int>, at time: Int64) {
      let added = Array(list)
      // Starts are spread over one period like the moves (a thousand drags starting in the same
      // millisecond is not a workload anyone has, and would measure a start-up burst instead).
      for (offset, client) in added.enumerated() {
        let phase = dragPeriod * Int64(offset) / Int64(max(1, added.count))
        draggers.append(Sender(client: client, period: dragPeriod, due: time + phase))
      }
    }
    var moveRate = configuration.moveRate
    var movers: [Sender] = []
    func scheduleMovers(at time: Int64) {
      movers = plan.movers.enumerated().map { offset, client in
        let period = Int64(1e6 * Double(plan.movers.count) / max(0.001, moveRate))
        return Sender(client: client, period: period, due: time + period * Int64(offset) / Int64(plan.movers.count))
      }
    }
    MonotonicClock.sleep(until: origin)
    addDraggers(plan.initialDraggers, at: origin)
    scheduleMovers(at: origin)
    timeline.steps.append((0, draggerCount, moveRate))

    let stepLength = Int64(max(1, configuration.rampStepSeconds.rounded()) * 1e6)
    let end = origin + Int64(configuration.durationSeconds * 1e6)
    var nextStep = origin + stepLength
    var nextPublish = origin + 250_000
    var nextSecond = origin + 1_000_000
    var nextStaleness = origin + Int64(configuration.stalenessIntervalMilliseconds * 1_000)
    var nextResume = plan.slowReaders.isEmpty ? Int64.max : origin
    var stepStart = published().counters
    var best = 0.0
    var flatSteps = 0
    var last = stepStart
    var lastTime = origin
    let loaderPeriod = Int64(configuration.loaderIntervalMilliseconds * 1_000)
    var nextLoad = loader == nil ? Int64.max : origin
    let stalenessPerShard = max(1, 5_000 * Int(configuration.stalenessIntervalMilliseconds) / 1_000 / shards.count)

    while true {
      let now = MonotonicClock.microseconds()
      if now >= end { break }
      var dragBatches = Array(repeating: [Int](), count: shards.count)
      var startBatches = Array(repeating: [Int](), count: shards.count)
      for index in draggers.indices where draggers[index].due <= now {
        let client = draggers[index].client
        if draggers[index].started {
          dragBatches[client % shards.count].append(client)
        } else {
          startBatches[client % shards.count].append(client)
          draggers[index].started = true
        }
        draggers[index].due += draggers[index].period
        if draggers[index].due < now { draggers[index].due = now + draggers[index].period }
      }
      var moveBatches = Array(repeating: [Int](), count: shards.count)
      for index in movers.indices where movers[index].due <= now {
        moveBatches[movers[index].client % shards.count].append(movers[index].client)
        movers[index].due += movers[index].period
        if movers[index].due < now - 1_000_000 { movers[index].due = now }
      }
      for (number, shard) in shards.enumerated()
      where !dragBatches[number].isEmpty || !startBatches[number].isEmpty || !moveBatches[number].isEmpty {
        let starts = startBatches[number]
        let drags = dragBatches[number]
        let moves = moveBatches[number]
        let boards = boards
        shard.context.post {
          for client in starts { shard.sendDrag(.start, client: client, board: boards[client % boards.count]) }
          for client in drags { shard.sendDrag(.move, client: client, board: boards[client % boards.count]) }
          for client in moves { shard.sendMove(client: client, board: boards[client % boards.count]) }
        }
      }
      if let loader, now >= nextLoad {
        nextLoad += loaderPeriod
        if nextLoad < now { nextLoad = now + loaderPeriod }
        loader.context.post { loader.turn() }
      }
      if now >= nextStaleness && !draggers.isEmpty {
        nextStaleness += Int64(configuration.stalenessIntervalMilliseconds * 1_000)
        for shard in shards { shard.context.post { shard.sampleStaleness(limit: stalenessPerShard) } }
      }
      if now >= nextResume {
        nextResume = now + Self.resumeInterval
        resumeSlowReaders()
      }
      if now >= nextPublish {
        nextPublish += 250_000
        for shard in shards { shard.context.post { shard.publishProgress() } }
      }
      if now >= nextSecond {
        nextSecond += 1_000_000
        if let sample = serverSampler?.sample() { timeline.serverSamples.append(sample) }
        if let sample = selfSampler.sample() { timeline.selfSamples.append(sample) }
        let state = published()
        progress.traffic(
          state: state, previous: last, seconds: Double(now - lastTime) / 1e6,
          elapsed: Double(now - origin) / 1e6, total: configuration.durationSeconds,
          receiversPerUpdate: Double(plan.receivers(of: 0)), draggers: draggerCount,
          server: timeline.serverSamples.suffix(2))
        last = state.counters
        lastTime = now
      }
      if configuration.ramp && now >= nextStep {
        nextStep += stepLength
        let current = published().counters
        let rate =
          configuration.moveRate > 0
          ? Double(current.movesAcknowledged - stepStart.movesAcknowledged)
          : Double(current.dragUpdatesDelivered - stepStart.dragUpdatesDelivered)
        stepStart = current
        if rate > best * 1.03 {
          best = rate
          flatSteps = 0
        } else {
          flatSteps += 1
        }
        // Two steps without a rise end the ramp; so does one well below the best (the target is
        // past its maximum, and pushing on only piles up a backlog until connections overflow).
        if flatSteps >= 2 || (flatSteps >= 1 && rate < best * 0.8) { break }
        if configuration.moveRate > 0 {
          moveRate *= configuration.rampFactor
          scheduleMovers(at: now)
        }
        if draggerCount > 0 && draggerCount < clients.count {
          let more = min(configuration.rampStep, clients.count - draggerCount)
          addDraggers(draggerCount..<(draggerCount + more), at: now)
          draggerCount += more
        }
        timeline.steps.append((Int((now - origin + 500_000) / 1_000_000), draggerCount, moveRate))
      }
      let nextDue = min(
        draggers.lazy.map(\.due).min() ?? end, movers.lazy.map(\.due).min() ?? end, nextPublish, nextLoad, end)
      MonotonicClock.sleep(until: min(nextDue, MonotonicClock.microseconds() + 2_000))
    }
    timeline.end = MonotonicClock.microseconds()
    // Each drag ends at its next due time, so the ends are spread over one period like the starts.
    for sender in draggers.sorted(by: { $0.due < $1.due }) {
      MonotonicClock.sleep(until: sender.due)
      post(sender.client) { shard, board in shard.sendDrag(.end, client: sender.client, board: board) }
    }
    progress.finishLine()
    return timeline
  }

  /// Posts `work` to the shard of `client` with the board of its room.
  /// How often paused slow readers are checked for resuming (µs): at 10 KB/s, 10 ms is 100 bytes
  /// of budget, below one drags frame, so the rate holds to within a frame.
  static let resumeInterval: Int64 = 10_000

  /// Has every shard let its slow readers that are back within their budget read again.
  func resumeSlowReaders() {
    guard !plan.slowReaders.isEmpty else { return }
    for shard in shards { shard.context.post { shard.resumeSlowReaders() } }
  }

  func post(_ client: Int, _ work: @escaping @Sendable (LoadShard, RoomBoard) -> Void) {
    let shard = shard(of: client)
    let board = boards[plan.roomOfClient[client]]
    shard.context.post { work(shard, board) }
  }

  /// Waits for in-flight deliveries: until every move is acknowledged and deliveries stopped for
  /// 300 ms, or `drainSeconds` passed.
  func drain() {
    let deadline = MonotonicClock.microseconds() + Int64(configuration.drainSeconds * 1e6)
    var lastDelivered = -1
    var quietSince = MonotonicClock.microseconds()
    while MonotonicClock.microseconds() < deadline {
      for shard in shards { shard.context.post { shard.publishProgress() } }
      for _ in 0..<5 {
        resumeSlowReaders()
        MonotonicClock.sleep(until: MonotonicClock.microseconds() + Self.resumeInterval)
      }
      let counters = published().counters
      let delivered = counters.dragUpdatesDelivered + counters.movesAppliedRemote + counters.movesAcknowledged
      let now = MonotonicClock.microseconds()
      if delivered != lastDelivered {
        lastDelivered = delivered
        quietSince = now
      } else if counters.movesAcknowledged + counters.rejected >= counters.movesSent && now - quietSince > 300_000 {
        break
      }
    }
  }
}
