import ReorderBasics

/// One lws client context (one service thread) and the clients on it.
///
/// Every method except the `post`-ing ones runs on the context's service thread; the driver
/// thread only posts work here and reads `published`.
final class LoadShard: @unchecked Sendable {
  let number: Int
  let context: any LoadSocketContext
  let configuration: LoadConfiguration
  /// The nodes, in `--url` order; a client connects to `targets[client.node]`.
  let targets: [LoadTarget]
  let runID: String
  let sentLog: Locked<DragSentLog>
  /// Clients on this shard, by run index.
  var clients: [Int: LoadClient] = [:]
  var measurements = Measurements()
  var ready = 0
  var failed = 0
  var closing = false
  var boards: [Int: RoomBoard] = [:]
  var seedingFailures: [String] = []
  var lastConnectFailure: String?
  var seedOpsApplied = 0
  var firstConnectAt: Int64?
  var firstReadyAt: Int64?
  var lastReadyAt: Int64?
  /// Picks moved items and anchors.
  var random: SplitMix64
  /// Slow readers that stopped reading, waiting for their budget (`LoadShard+Throttle.swift`).
  var pausedReaders: Set<Int> = []
  /// Next receiver to sample staleness at.
  var stalenessCursor = 0
  /// What the driver reads.
  let published = Locked(ShardProgress())
  /// The final measurements, once `finish` ran.
  let result = Locked<Measurements?>(nil)

  init(
    number: Int, configuration: LoadConfiguration, targets: [LoadTarget], nodeOfClient: [Int], runID: String,
    sentLog: Locked<DragSentLog>, makeContext: LoadSocketContextFactory
  ) throws {
    self.number = number
    self.configuration = configuration
    self.targets = targets
    self.runID = runID
    self.sentLog = sentLog
    random = SplitMix64(seed: 0x5EED_0000 &+ UInt64(number))
    context = try makeContext()
    measurements.window = Int64(configuration.coverageWindowMilliseconds * 1_000)
    if targets.count > 1 { measurements.nodeOfClient = nodeOfClient }
  }

  var isMirror: Bool { configuration.mode == .mirror }

  /// Service thread: starts connecting `client`.
  func connect(_ client: LoadClient) {
    clients[client.index] = client
    client.phase = .connecting
    client.connectStarted = MonotonicClock.microseconds()
    if firstConnectAt == nil { firstConnectAt = client.connectStarted }
    let roomName = "\(configuration.roomPrefix)\(client.room)"
    let target = targets[client.node]
    let url = isMirror ? target.mirrorURL(roomName) : target.roomURL(roomName)
    let subprotocol: String? = isMirror ? "lws-mirror-protocol" : nil
    client.connection = context.connect(url: url, subprotocol: subprotocol) { [unowned self] event in
      self.handle(event, for: client)
    }
  }

  /// Service thread: one event of one client.
  func handle(_ event: LoadSocketEvent, for client: LoadClient) {
    switch event {
    case .opened:
      if isMirror {
        becomeReady(client)
      } else {
        let hello =
          #"{"type":"hello","v":1,"room":"\#(configuration.roomPrefix)\#(client.room)","client":"\#(runID)-\#(client.index)","#
          + #""name":"load \#(client.index)","color":"\#(Self.color(client.index))""#
          + (configuration.token.map { #","token":"\#($0)"}"# } ?? "}")
        client.connection?.send(hello)
      }
    case .text(let text):
      receive(text, for: client)
    case .binary:
      measurements.counters.errors += 1
    case .closed(let code, let reason):
      let wasReady = client.phase == .ready
      client.phase = .closed
      if !closing {
        let key = (code.map { String($0) } ?? "no close frame") + (reason.isEmpty ? "" : " '\(reason.prefix(80))'")
        measurements.closeReasons[key, default: 0] += 1
        if client.throttle != nil { measurements.slow.closes[key, default: 0] += 1 }
      }
      if !wasReady {
        lastConnectFailure = reason.isEmpty ? "closed with code \(code.map { String($0) } ?? "none")" : reason
        failed += 1
        measurements.counters.connectFailures += 1
      } else if !closing {
        measurements.counters.unexpectedCloses += 1
      }
      publishConnectionCounts()
    }
  }

  func becomeReady(_ client: LoadClient) {
    guard client.phase == .connecting else { return }
    client.phase = .ready
    ready += 1
    measurements.counters.connected += 1
    measurements.connectedPerNode[client.node, default: 0] += 1
    let now = MonotonicClock.microseconds()
    measurements.connectLatency.record(microseconds: now - client.connectStarted)
    if firstReadyAt == nil { firstReadyAt = now }
    lastReadyAt = now
    publishConnectionCounts()
  }

  func publishConnectionCounts() {
    let ready = ready
    let failed = failed
    let closed = measurements.counters.unexpectedCloses
    let boards = boards
    let failures = seedingFailures
    let lastFailure = lastConnectFailure
    let times = (firstConnectAt, firstReadyAt, lastReadyAt)
    let seedOps = seedOpsApplied
    published.withLock {
      $0.lastConnectFailure = lastFailure
      ($0.firstConnectAt, $0.firstReadyAt, $0.lastReadyAt) = times
      $0.seedOpsApplied = seedOps
      $0.ready = ready
      $0.failed = failed
      $0.closedUnexpectedly = closed
      $0.boards = boards
      $0.seedingFailures = failures
    }
  }

  /// Service thread: publishes counters and the last second's latency for the driver.
  func publishProgress() {
    let counters = measurements.counters
    let second = measurements.second(of: MonotonicClock.microseconds()) - 1
    let drag =
      second >= 0 && second < measurements.dragLatencyPerSecond.count
      ? measurements.dragLatencyPerSecond[second] : LatencyHistogram()
    let ack =
      second >= 0 && second < measurements.ackLatencyPerSecond.count
      ? measurements.ackLatencyPerSecond[second] : LatencyHistogram()
    published.withLock {
      $0.counters = counters
      $0.lastSecondDragLatency = drag
      $0.lastSecondAckLatency = ack
    }
  }

  static func color(_ index: Int) -> String {
    let palette = ["#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#42d4f4", "#f032e6", "#469990"]
    return palette[index % palette.count]
  }
}
