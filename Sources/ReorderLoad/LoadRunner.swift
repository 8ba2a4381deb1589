import Foundation
import ReorderBasics

/// Runs one load scenario: connects the clients, drives drags and moves on schedule from the
/// calling thread, and gathers what every client measured into a `LoadResult`.
///
/// Threads: the caller is the driver (it only posts work to the shards and reads what they
/// publish); each shard is one lws client context whose service thread owns its clients.
public final class LoadRunner {
  public let configuration: LoadConfiguration
  /// The nodes of `--url`, in order (one for a single server); clients are spread over them
  /// (`RoomPlan.nodeOfClient`); the loader goes to the first.
  public let targets: [LoadTarget]
  let plan: RoomPlan
  let sentLog = Locked(DragSentLog())
  var shards: [LoadShard] = []
  var clients: [LoadClient] = []
  var boards: [RoomBoard] = []
  var notes: [String] = []
  /// The client that joins and leaves `loaderRoom`, with `--loader-room`.
  var loader: RoomLoader?
  /// Server and own samples taken once a second while connecting (a join-only run's CPU).
  var connectSamples = (server: [ProcessSample](), this: [ProcessSample]())
  let serverSampler: ProcessSampler?
  let selfSampler = ProcessSampler(pid: nil)
  let progress: ProgressPrinter
  /// Where progress lines go (stderr by default).
  let log: @Sendable (String) -> Void
  let makeContext: LoadSocketContextFactory

  /// Validates `configuration` and the targets (every node of `--url`).
  ///
  /// - Throws: `LoadError.invalidURL`, `.remoteTargetRefused` (a non-loopback target without
  ///   `allowRemote`), `.invalidConfiguration`.
  public init(
    configuration: LoadConfiguration, makeContext: @escaping LoadSocketContextFactory,
    log: @escaping @Sendable (String) -> Void = LoadRunner.standardError
  ) throws {
    let problems = configuration.problems()
    guard problems.isEmpty else { throw LoadError.invalidConfiguration(problems) }
    let targets = try LoadTarget.list(configuration.url)
    if !configuration.allowRemote, let remote = targets.first(where: { !$0.isLoopback }) {
      throw LoadError.remoteTargetRefused(remote.host)
    }
    self.configuration = configuration
    self.targets = targets
    let maxDraggers = configuration.ramp ? configuration.clients : configuration.effectiveDraggers
    plan = RoomPlan(configuration, nodes: targets.count, maxDraggers: maxDraggers)
    serverSampler = configuration.serverPID.map { ProcessSampler(pid: $0) }
    progress = ProgressPrinter(label: configuration.label, enabled: configuration.progress, log: log)
    self.log = log
    self.makeContext = makeContext
  }

  /// The nodes' origins, comma-separated, as `--url` gave them.
  var origins: String { targets.map(\.origin).joined(separator: ",") }

  /// Writes a line to standard error.
  public static let standardError: @Sendable (String) -> Void = { line in
    FileHandle.standardError.write(Data((line + "\n").utf8))
  }

  /// Runs the scenario to the end (bounded by the configured timeouts) and returns what it measured.
  ///
  /// - Throws: `LoadError.connectFailed` or `.seedingFailed` when the run cannot start.
  public func run() throws -> LoadResult {
    raiseFileLimit(to: configuration.clients + 256)
    let startedAt = ISO8601DateFormatter().string(from: Date())
    let runID = "L\(String(UInt32(truncatingIfNeeded: MonotonicClock.microseconds()), radix: 36))"
    shards = try (0..<configuration.threads).map {
      try LoadShard(
        number: $0, configuration: configuration, targets: targets, nodeOfClient: plan.nodeOfClient, runID: runID,
        sentLog: sentLog,
        makeContext: makeContext)
    }
    if let room = configuration.loaderRoom {
      loader = RoomLoader(
        context: try makeContext(), url: targets[0].roomURL(room), room: room, clientID: "\(runID)-loader",
        intervalMilliseconds: configuration.loaderIntervalMilliseconds)
    }
    defer { shutdown() }
    clients = (0..<configuration.clients).map {
      LoadClient(index: $0, room: plan.roomOfClient[$0], node: plan.nodeOfClient[$0])
    }
    let stride = configuration.measureStride
    for client in clients { client.measured = client.index % stride == 0 }
    // Slow readers are accounted apart (`SlowReaderFigures`), so the run's latency and coverage
    // are those of the clients that read at full speed.
    for index in plan.slowReaders {
      clients[index].measured = false
      clients[index].throttle = ReadThrottle(bytesPerSecond: Double(configuration.slowReadBytesPerSecond))
    }
    let loadBefore = ProcessSampler.loadAverage()
    let rssBefore = serverSampler?.sample()
    let selfBefore = selfSampler.sample()
    let connectStart = MonotonicClock.microseconds()
    var seedSeconds: Double?
    if !configuration.joinOnly {
      try seedRooms()
      seedSeconds = Double(MonotonicClock.microseconds() - connectStart) / 1e6
    }
    if !configuration.seedOnly { try connectEveryone() }
    let connectSeconds = Double(MonotonicClock.microseconds() - connectStart) / 1e6
    // Joining makes traffic of its own (welcomes, `peer` joins to every member): wait until the
    // clients have received nothing for a while, so the traffic does not queue behind it and the
    // idle memory is idle.
    let settleSeconds = configuration.seedOnly ? 0 : settle()
    if let gate = configuration.startGate, !configuration.joinOnly, !configuration.seedOnly { waitForGate(gate) }
    let rssIdle = serverSampler?.sample()
    var traffic = Timeline()
    if configuration.joinOnly || configuration.seedOnly {
      // No traffic: the process figures are those of connecting (and settling).
      traffic.origin = MonotonicClock.microseconds()
      traffic.end = traffic.origin
      traffic.serverSamples = [rssBefore].compactMap { $0 } + connectSamples.server + [rssIdle].compactMap { $0 }
      traffic.selfSamples =
        [selfBefore].compactMap { $0 } + connectSamples.this + [selfSampler.sample()].compactMap { $0 }
    } else {
      traffic = runTraffic()
      drain()
      traffic.drainEnd = MonotonicClock.microseconds()
    }
    let loaderSummary = stopLoader()
    let measurements = collect()
    // After the run: a client whose `welcome` came late (during the traffic) still counts.
    let joined = published()
    var result = makeResult(
      measurements: measurements, traffic: traffic, startedAt: startedAt, connectSeconds: connectSeconds,
      serverBefore: rssBefore, serverIdle: rssIdle, selfBefore: selfBefore)
    result.loadAverage = [loadBefore, ProcessSampler.loadAverage()].compactMap { $0 }
    result.settleSeconds = settleSeconds
    result.join = JoinTimes(joined, connectRate: configuration.connectRate)
    result.loader = loaderSummary
    result.coverageWindowMilliseconds = configuration.coverageWindowMilliseconds
    if let seedSeconds, configuration.seedOnly || configuration.seedMoves > 0 {
      result.seeding = SeedingSummary(seconds: seedSeconds, opsApplied: joined.seedOpsApplied)
    }
    return result
  }

  /// Stops the loader (if any) and waits, bounded, for what it did.
  func stopLoader() -> LoaderSummary? {
    guard let loader else { return nil }
    loader.context.post { loader.stop() }
    let deadline = MonotonicClock.microseconds() + 5_000_000
    while loader.result.snapshot == nil && MonotonicClock.microseconds() < deadline {
      MonotonicClock.sleep(until: MonotonicClock.microseconds() + 2_000)
    }
    if loader.result.snapshot == nil { notes.append("the loader did not report in time") }
    return loader.result.snapshot
  }

  func shard(of client: Int) -> LoadShard { shards[client % shards.count] }

  /// Sum of what the shards published.
  func published() -> ShardProgress {
    var total = ShardProgress()
    for shard in shards {
      let part = shard.published.snapshot
      total.ready += part.ready
      total.failed += part.failed
      total.closedUnexpectedly += part.closedUnexpectedly
      total.counters.add(part.counters)
      total.lastSecondDragLatency.merge(part.lastSecondDragLatency)
      total.lastSecondAckLatency.merge(part.lastSecondAckLatency)
      total.boards.merge(part.boards) { first, _ in first }
      total.seedingFailures += part.seedingFailures
      total.lastConnectFailure = total.lastConnectFailure ?? part.lastConnectFailure
      total.seedOpsApplied += part.seedOpsApplied
      total.firstConnectAt = [total.firstConnectAt, part.firstConnectAt].compactMap { $0 }.min()
      total.firstReadyAt = [total.firstReadyAt, part.firstReadyAt].compactMap { $0 }.min()
      total.lastReadyAt = [total.lastReadyAt, part.lastReadyAt].compactMap { $0 }.max()
    }
    return total
  }

  /// Connects the first client of every room and, in rooms mode, has it prepare the board.
  func seedRooms() throws {
    let seeders = plan.seeders
    // A big board (`--seed-only`, `--seed-moves`) gets what it asks for; a run's own rooms only
    // need an item per dragger.
    let big = configuration.seedOnly || configuration.seedMoves > 0
    let wanted = big ? configuration.seedItems : min(500, max(configuration.seedItems, plan.maxDraggersPerRoom))
    for client in seeders {
      let seederClient = clients[client]
      if configuration.mode == .reorder {
        seederClient.seeder = RoomSeeder(
          room: seederClient.room, wantedItems: wanted, wantedMoves: configuration.seedMoves,
          window: configuration.seedWindow)
      }
      let shard = shard(of: client)
      shard.context.post { shard.connect(seederClient) }
    }
    let deadline = MonotonicClock.microseconds() + Int64(configuration.connectTimeoutSeconds * 1e6)
    while true {
      let state = published()
      if configuration.mode == .mirror, state.ready + state.failed >= seeders.count {
        if state.failed > 0 {
          throw LoadError.connectFailed(
            connected: state.ready, wanted: clients.count,
            reason: "could not connect to \(origins): \(state.lastConnectFailure ?? "no reason given")")
        }
        boards = Array(repeating: RoomBoard(list: "mirror", items: ["item"]), count: configuration.rooms)
        return
      }
      if let failure = state.seedingFailures.first { throw LoadError.seedingFailed(failure) }
      if state.failed > 0 {
        throw LoadError.connectFailed(
          connected: state.ready, wanted: clients.count,
          reason: "the first client of a room could not connect to \(targets[0].origin): "
            + (state.lastConnectFailure ?? "no reason given") + "; is the server running there?")
      }
      if state.boards.count == seeders.count {
        boards = (0..<configuration.rooms).map { state.boards[$0]! }
        return
      }
      if big { progress.seeding(opsApplied: state.seedOpsApplied, rooms: seeders.count) }
      if MonotonicClock.microseconds() > deadline {
        throw LoadError.seedingFailed(
          "\(state.boards.count) of \(seeders.count) rooms ready after \(configuration.connectTimeoutSeconds) s")
      }
      MonotonicClock.sleep(until: MonotonicClock.microseconds() + 5_000)
    }
  }

  /// Connects the remaining clients (every client with `joinOnly`, which prepares no room), at most
  /// `connectConcurrency` handshakes at a time and, with `connectRate`, at most that many started
  /// per second.
  func connectEveryone() throws {
    let seeders = configuration.joinOnly ? [] : Set(plan.seeders)
    var queue = clients.filter { !seeders.contains($0.index) }.makeIterator()
    var started = seeders.count
    let start = MonotonicClock.microseconds()
    let deadline = start + Int64(configuration.connectTimeoutSeconds * 1e6)
    let pace = configuration.connectRate > 0 ? Int64(1e6 / configuration.connectRate) : 0
    var nextStart = start
    var nextSample = start + 1_000_000
    while true {
      let state = published()
      let settled = state.ready + state.failed
      if settled >= clients.count { break }
      let now = MonotonicClock.microseconds()
      if now > deadline { break }
      // After a stall (every slot in use), pacing resumes from at most 0.1 s back: no burst.
      if pace > 0 { nextStart = max(nextStart, now - 100_000) }
      while started - settled < configuration.connectConcurrency, pace == 0 || nextStart <= now,
        let client = queue.next()
      {
        let shard = shard(of: client.index)
        shard.context.post { shard.connect(client) }
        started += 1
        nextStart += pace
      }
      if now >= nextSample {
        nextSample += 1_000_000
        if let sample = serverSampler?.sample() { connectSamples.server.append(sample) }
        if let sample = selfSampler.sample() { connectSamples.this.append(sample) }
      }
      progress.connecting(ready: state.ready, failed: state.failed, wanted: clients.count)
      MonotonicClock.sleep(until: MonotonicClock.microseconds() + (pace > 0 ? min(5_000, max(500, pace)) : 5_000))
    }
    let state = published()
    progress.connecting(ready: state.ready, failed: state.failed, wanted: clients.count, final: true)
    if state.ready < clients.count {
      let reason =
        state.failed > 0
        ? "\(state.failed) failed, the last with: \(state.lastConnectFailure ?? "no reason given")"
          + " (for many clients raise `ulimit -n`)"
        : "timed out after \(configuration.connectTimeoutSeconds) s"
      guard configuration.partialConnect, state.ready > 0 else {
        throw LoadError.connectFailed(connected: state.ready, wanted: clients.count, reason: reason)
      }
      notes.append("only \(state.ready) of \(clients.count) clients connected (\(reason)); the run went on with them")
    }
  }

  /// Waits until the file at `path` exists (`--start-gate`: the processes of one run start their
  /// traffic together), at most `connectTimeoutSeconds`.
  func waitForGate(_ path: String) {
    let deadline = MonotonicClock.microseconds() + Int64(configuration.connectTimeoutSeconds * 1e6)
    while !FileManager.default.fileExists(atPath: path) {
      guard MonotonicClock.microseconds() < deadline else {
        notes.append("--start-gate \(path) did not appear within \(configuration.connectTimeoutSeconds) s")
        return
      }
      MonotonicClock.sleep(until: MonotonicClock.microseconds() + 50_000)
    }
  }

  /// Waits until no client has received anything for 500 ms (at most `settleTimeoutSeconds`);
  /// returns how long it took.
  func settle() -> Double {
    let start = MonotonicClock.microseconds()
    let deadline = start + Int64(configuration.settleTimeoutSeconds * 1e6)
    var lastBytes = -1
    var quietSince = start
    while MonotonicClock.microseconds() < deadline {
      for shard in shards { shard.context.post { shard.publishProgress() } }
      MonotonicClock.sleep(until: MonotonicClock.microseconds() + 100_000)
      let bytes = published().counters.bytesReceived
      let now = MonotonicClock.microseconds()
      if bytes != lastBytes {
        lastBytes = bytes
        quietSince = now
      } else if now - quietSince >= 500_000 {
        break
      }
    }
    if MonotonicClock.microseconds() >= deadline {
      notes.append("clients still receiving join traffic after \(configuration.settleTimeoutSeconds) s")
    }
    return Double(MonotonicClock.microseconds() - start) / 1e6
  }

  /// Raises the soft limit on open files towards `wanted` (up to the hard limit).
  func raiseFileLimit(to wanted: Int) {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
    let target = min(rlim_t(wanted), limit.rlim_max)
    if limit.rlim_cur < target {
      limit.rlim_cur = target
      _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
    if Int(limit.rlim_cur) < wanted {
      notes.append("open-file limit \(limit.rlim_cur) is below \(wanted); raise `ulimit -n`")
    }
  }

  /// Posts `finish` to every shard and waits (bounded) for their measurements.
  func collect() -> Measurements {
    for shard in shards { shard.context.post { shard.finish() } }
    var total = Measurements()
    let deadline = MonotonicClock.microseconds() + 10_000_000
    for shard in shards {
      while shard.result.snapshot == nil && MonotonicClock.microseconds() < deadline {
        MonotonicClock.sleep(until: MonotonicClock.microseconds() + 2_000)
      }
      if let part = shard.result.snapshot {
        total.merge(part)
      } else {
        notes.append("shard \(shard.number) did not report in time")
      }
    }
    return total
  }

  func shutdown() {
    // Give the close frames a moment to leave before the contexts go.
    MonotonicClock.sleep(until: MonotonicClock.microseconds() + 200_000)
    for shard in shards { shard.context.shutdown() }
    shards = []
    loader?.context.shutdown()
    loader = nil
  }
}
