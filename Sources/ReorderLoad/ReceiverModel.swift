/// What one receiving client knows about one remote drag.
struct ReceiverDragView {
  /// Highest update number received (-1: none).
  var lastSeq: Int32 = -1
  /// Updates up to this number have been judged covered or late (-1: none).
  var judgedThrough: Int32 = -1
  /// Send time of the freshest update received (µs).
  var freshestSent: Int64 = 0
}

/// Per-client receiving state.
struct ReceiverState {
  /// Remote drags seen, by drag index.
  var views: [Int: ReceiverDragView] = [:]
  /// Last `applied` seq seen (-1: none yet; `welcome` sets the starting point).
  var lastAppliedSeq: Int64 = -1
  /// Frames with drag updates received during the traffic, and when the last one came.
  var dragFrames = 0
  var lastDragFrameAt: Int64?
  /// Longest time without a drag frame during the traffic (µs).
  var longestSilence: Int64 = 0
}

/// The measurements of one service thread: counters, series and histograms, updated by the
/// receive path and merged across threads at the end.
struct Measurements {
  var counters = LoadCounters()
  var series = ThroughputSeries()
  /// Drag update sent → delivered to another client (µs).
  var dragLatency = LatencyHistogram()
  /// Age of the freshest known position of each active remote drag, sampled at receivers (µs).
  var staleness = LatencyHistogram()
  /// Move sent → `applied` at its sender (µs).
  var ackLatency = LatencyHistogram()
  /// Move sent → `applied` at the other clients (µs).
  var remoteApplyLatency = LatencyHistogram()
  /// Connect started → ready (opened, or welcome in rooms mode) (µs).
  var connectLatency = LatencyHistogram()
  /// Per receiver: the longest time without a drag frame during the traffic (µs).
  var receiverSilence = LatencyHistogram()
  /// Drag latency per second of traffic, for the report's p99 over time.
  var dragLatencyPerSecond: [LatencyHistogram] = []
  /// Ack latency per second of traffic.
  var ackLatencyPerSecond: [LatencyHistogram] = []
  /// Traffic start (µs); nil before the traffic phase (nothing is put in series then).
  var origin: Int64?
  /// Coverage window (µs).
  var window: Int64 = 100_000
  /// Why connections closed during the run (`code reason` → count).
  var closeReasons: [String: Int] = [:]
  /// Clients that became ready, by node index.
  var connectedPerNode: [Int: Int] = [:]
  /// Node of each client, with more than one node in `--url` (empty otherwise); not merged.
  var nodeOfClient: [Int] = []
  /// Drag update sent → delivered, for a receiver on another node than the dragger (µs): the
  /// path through the nodes' shared store.
  var crossNodeDragLatency = LatencyHistogram()
  /// What the slow readers (`--slow-readers`) got; the figures above are the other clients'.
  var slow = SlowReaderFigures()

  /// Whole second of traffic containing `time`, or -1 before the traffic phase.
  @inline(__always)
  func second(of time: Int64) -> Int {
    guard let origin, time >= origin else { return -1 }
    return Int((time - origin) / 1_000_000)
  }

  @inline(__always)
  static func record(_ perSecond: inout [LatencyHistogram], _ second: Int, _ value: Int64) {
    guard second >= 0 && second < 3_600 else { return }
    if second >= perSecond.count {
      perSecond.append(contentsOf: repeatElement(LatencyHistogram(), count: second + 1 - perSecond.count))
    }
    perSecond[second].record(microseconds: value)
  }

  /// Accounts one drag update received by client `receiver` at `arrival`.
  ///
  /// Judges every update of that drag between the last judged one and this one: covered when sent
  /// no earlier than `arrival - window`, late otherwise.
  /// - Complexity: O(log n) in the drag's updates.
  mutating func receive(
    _ stamp: DragStamp, receiver: Int, state: inout ReceiverState, arrival: Int64, log: DragSentLog
  ) {
    guard stamp.drag >= 0 && stamp.drag < log.owners.count else {
      counters.errors += 1
      return
    }
    if log.owners[stamp.drag] == receiver {
      counters.ownEchoes += 1
      return
    }
    let second = second(of: arrival)
    counters.dragUpdatesDelivered += 1
    ThroughputSeries.bump(&series.dragUpdatesDelivered, second)
    let latency = arrival - stamp.sent
    dragLatency.record(microseconds: latency)
    let owner = log.owners[stamp.drag]
    if receiver < nodeOfClient.count, owner < nodeOfClient.count, nodeOfClient[owner] != nodeOfClient[receiver] {
      crossNodeDragLatency.record(microseconds: latency)
    }
    Self.record(&dragLatencyPerSecond, second, latency)
    var view = state.views[stamp.drag] ?? ReceiverDragView()
    if stamp.seq == view.lastSeq {
      counters.dragDuplicates += 1
      return
    }
    if stamp.seq < view.lastSeq {
      counters.dragOutOfOrder += 1
      return
    }
    let covered = log.countSent(
      drag: stamp.drag, after: view.judgedThrough, through: stamp.seq, atOrAfter: arrival - window)
    let judged = Int(stamp.seq - view.judgedThrough)
    counters.dragUpdatesCovered += covered
    counters.dragUpdatesLate += max(0, judged - covered)
    ThroughputSeries.bump(&series.dragUpdatesCovered, second, by: covered)
    view.judgedThrough = stamp.seq
    view.lastSeq = stamp.seq
    view.freshestSent = stamp.sent
    state.views[stamp.drag] = view
    if let end = log.endSeq[stamp.drag], stamp.seq == end {
      counters.dragEndsDelivered += 1
    }
  }

  /// Notes that a frame with drag updates reached `state`'s client at `arrival`.
  func frameArrived(state: inout ReceiverState, arrival: Int64) {
    guard let origin, arrival >= origin else { return }
    state.dragFrames += 1
    state.longestSilence = max(state.longestSilence, arrival - (state.lastDragFrameAt ?? origin))
    state.lastDragFrameAt = arrival
  }

  /// Samples, at one receiver, the age of the freshest known position of each active remote drag.
  mutating func sampleStaleness(receiver: Int, room: Int, state: ReceiverState, now: Int64, log: DragSentLog) {
    guard room < log.dragsByRoom.count else { return }
    for drag in log.dragsByRoom[room] where log.owners[drag] != receiver && log.endSeq[drag] == nil {
      guard let started = log.sentTime(drag: drag, seq: 0) else { continue }
      let known = state.views[drag].map { $0.lastSeq >= 0 ? $0.freshestSent : started } ?? started
      staleness.record(microseconds: now - known)
    }
  }

  /// Final accounting at one receiver after the drain: what was due, and what never arrived.
  mutating func finish(receiver: Int, room: Int, state: ReceiverState, log: DragSentLog) {
    guard room < log.dragsByRoom.count else { return }
    if log.dragsByRoom[room].contains(where: { log.owners[$0] != receiver }) {
      receiverSilence.record(microseconds: state.longestSilence)
    }
    for drag in log.dragsByRoom[room] where log.owners[drag] != receiver {
      let sent = log.sentCount(drag)
      counters.dragUpdatesExpected += sent
      let judged = Int(state.views[drag]?.judgedThrough ?? -1) + 1
      counters.dragUpdatesLost += max(0, sent - judged)
      if log.endSeq[drag] != nil { counters.dragEndsExpected += 1 }
    }
  }

  /// Accounts an `applied` with op id `id` and `seq` received by client `receiver`.
  mutating func applied(id: String?, seq: Int64?, receiver: Int, state: inout ReceiverState, arrival: Int64) {
    if let seq {
      if state.lastAppliedSeq >= 0 {
        if seq <= state.lastAppliedSeq {
          counters.appliedDuplicates += 1
        } else if seq != state.lastAppliedSeq + 1 {
          counters.appliedGaps += 1
        }
      }
      state.lastAppliedSeq = max(state.lastAppliedSeq, seq)
    }
    guard let id, let stamp = MoveStamp(id) else { return }
    let latency = arrival - stamp.sent
    if stamp.client == receiver {
      counters.movesAcknowledged += 1
      let second = second(of: arrival)
      ThroughputSeries.bump(&series.movesAcknowledged, second)
      ackLatency.record(microseconds: latency)
      Self.record(&ackLatencyPerSecond, second, latency)
    } else {
      counters.movesAppliedRemote += 1
      remoteApplyLatency.record(microseconds: latency)
    }
  }

  /// Adds `other` (another thread's measurements).
  mutating func merge(_ other: Measurements) {
    counters.add(other.counters)
    series.add(other.series)
    dragLatency.merge(other.dragLatency)
    staleness.merge(other.staleness)
    ackLatency.merge(other.ackLatency)
    remoteApplyLatency.merge(other.remoteApplyLatency)
    connectLatency.merge(other.connectLatency)
    receiverSilence.merge(other.receiverSilence)
    closeReasons.merge(other.closeReasons, uniquingKeysWith: +)
    connectedPerNode.merge(other.connectedPerNode, uniquingKeysWith: +)
    crossNodeDragLatency.merge(other.crossNodeDragLatency)
    slow.merge(other.slow)
    for (second, histogram) in other.dragLatencyPerSecond.enumerated() {
      if second >= dragLatencyPerSecond.count { dragLatencyPerSecond.append(LatencyHistogram()) }
      dragLatencyPerSecond[second].merge(histogram)
    }
    for (second, histogram) in other.ackLatencyPerSecond.enumerated() {
      if second >= ackLatencyPerSecond.count { ackLatencyPerSecond.append(LatencyHistogram()) }
      ackLatencyPerSecond[second].merge(histogram)
    }
  }
}
