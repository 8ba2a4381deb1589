import ReorderBasics
import ReorderRedis
import ReorderRooms
import ReorderTransport

/// Cluster mode's side of the driver: performs the registry's `.cluster` actions on threads of
/// their own and hands the answers back to the service thread (`transport.post`). Nothing here
/// waits on the service thread: `perform` only queues.
///
/// - appends: `ClusterAppender` (one pipeline per round trip of everything queued);
/// - the followed rooms' logs: `ClusterTail` (one `XREAD BLOCK` over all of them);
/// - presence channels: `ClusterPresence` (`SUBSCRIBE`);
/// - publishes, rosters, the rooms' log seqs: `ClusterControl`;
/// - the board list's summaries and `board.changed`: `ClusterSummaries`.
///
/// Each has its own connection (`RedisLink`, reconnecting with backoff); their failures make
/// `/healthz` `degraded` (`health`).
final class ClusterAdapter: @unchecked Sendable {
  /// This node in the cluster (the registry's).
  let node: ClusterNode
  /// Whether each part reaches Redis, and the rooms' log seqs.
  let health: ClusterHealth
  /// Every connection's round trips and reconnects (`/metrics`).
  let metrics: RedisMetrics
  /// The rooms' storage port over Redis (loads, catch-up reads, leased snapshots).
  let storage: RedisRoomStorage
  /// The board list's summaries and the lease holder's `board.changed` webhooks.
  let summaries: ClusterSummaries
  private let appender: ClusterAppender
  private let tail: ClusterTail
  private let presence: ClusterPresence
  private let control: ClusterControl

  /// Prepares the threads for `url` (nothing connects before `start()`). `retainedOps`: the ops
  /// kept before each snapshot when trimming (`ServerConfiguration.retainedOps`).
  init(url: RedisURL, node: ClusterNode, retainedOps: Int) {
    self.node = node
    let health = ClusterHealth()
    let metrics = RedisMetrics()
    let sink = DriverSink()
    self.health = health
    self.metrics = metrics
    self.sink = sink
    func link() -> RedisLink {
      RedisLink(url: url, metrics: metrics, prepare: { (redis) throws(RedisError) in try redis.loadFunctions() })
    }
    storage = RedisRoomStorage(link: link(), node: node.node, retainedOps: retainedOps, health: health)
    summaries = ClusterSummaries(link: link(), node: node.node, health: health)
    appender = ClusterAppender(link: link(), health: health) { [sink] answers in
      let driver = sink.driver
      driver?.transport?.post { [weak driver] in driver?.clusterAppended(answers) }
    }
    let tail = ClusterTail(
      link: link(), health: health,
      deliver: { [sink] room, entries in
        let driver = sink.driver
        driver?.transport?.post { [weak driver] in driver?.clusterLogged(room: room, entries: entries) }
      },
      changed: { [sink] room, epoch in
        let driver = sink.driver
        driver?.transport?.post { [weak driver] in driver?.clusterHistoryChanged(room: room, epoch: epoch) }
      })
    self.tail = tail
    presence = ClusterPresence(url: url, node: node.node, metrics: metrics, health: health) { [sink] messages in
      let driver = sink.driver
      driver?.transport?.post { [weak driver] in driver?.clusterPresence(messages) }
    }
    control = ClusterControl(
      link: link(), node: node.node, health: health, followed: { tail.rooms },
      deliver: { [sink] room, entries in
        let driver = sink.driver
        driver?.transport?.post { [weak driver] in driver?.clusterRoster(room: room, entries: entries) }
      })
  }

  /// Starts the threads.
  func start() {
    appender.start()
    tail.start()
    presence.start()
    control.start()
    summaries.start()
  }

  /// Stops the threads; this node's sessions leave the rosters. Not on the service thread.
  func stop() {
    control.stop()
    summaries.stop()
    appender.stop()
    tail.stop()
    presence.stop()
  }

  /// When each append in flight was queued (service thread only): its wait for the log goes to
  /// `reorder_op_commit_seconds`, as the store's commit does on one node.
  private var appendedAt: [UInt64: Double] = [:]

  /// The wait of an append that was answered (service thread), or nil if unknown.
  func answered(_ append: SharedAppend, now: Double) -> Double? {
    appendedAt.removeValue(forKey: append.ticket).map { now - $0 }
  }

  /// Queues one action of the registry (service thread; never waits).
  func perform(_ action: ClusterAction) {
    switch action {
    case .append(let append):
      appendedAt[append.ticket] = MonotonicClock.now()
      appender.append(append)
    case .readRange(let room, let after, let through):
      // The room asks for a gap it saw (through > after); at most 10,000 entries a read, the
      // rest is asked for again with the next entry.
      let limit = through > after ? Int(min(through - after, 10_000)) : 1
      storage.entries(room: room, after: after, limit: limit) { [weak self] result in
        self?.rangeRead(room: room, through: through, result: result)
      }
    case .follow(let room, let after):
      tail.follow(room, after: after, epoch: driver?.registry.sharedFollowEpoch(room: room))
      presence.follow(room)
      control.read(room: room)
    case .unfollow(let room):
      tail.unfollow(room)
      presence.unfollow(room)
      summaries.forget(room: room)
      driver?.clusterRoomGone(room)
    case .apiDone(let request, let results):
      driver?.clusterAPIAnswered(request, results: results, failure: nil)
    case .apiFailed(let request, let reason):
      driver?.clusterAPIAnswered(request, results: nil, failure: reason)
    case .publish(let room, let payload):
      control.publish(room: room, payload: payload)
    case .rosterJoin(let room, let session, let peer):
      control.join(room: room, session: session, peer: peer)
    case .rosterLeave(let room, let session):
      control.leave(room: room, session: session)
    }
  }

  /// The HTTP API's `POST …/ops` requests waiting for their room's results, by request id
  /// (service thread only; `RoomsDriver+ClusterAPI.swift`).
  var apiRequests: [UInt64: (room: String, responder: HTTPResponder)] = [:]
  /// The next API request's id.
  var nextAPIRequest: UInt64 = 1
  /// The reads (`GET …/ops`, `GET …/history`) waiting for their room to load here, by room: each
  /// answers once the load did (service thread only; `RoomsDriver.readFromReplica`).
  var replicaReads: [String: [(Result<PreparedRoom, RoomStoreError>) -> Void]] = [:]

  /// Where answers go: set by `ReorderService` once the driver is made (which needs `storage`).
  var driver: RoomsDriver? {
    get { sink.driver }
    set { sink.driver = newValue }
  }
  private let sink: DriverSink

  /// The driver, weakly: the driver owns this adapter.
  private final class DriverSink: @unchecked Sendable {
    weak var driver: RoomsDriver?
  }

  private func rangeRead(room: String, through: UInt64, result: Result<[LogEntry], RoomStoreError>) {
    driver?.transport?.post { [weak driver] in
      guard let driver else { return }
      switch result {
      case .success(let entries):
        let shared = entries.filter { $0.seq <= through }.map {
          SharedLogEntry(seq: $0.seq, node: "", key: [], payload: $0.payload)
        }
        driver.clusterLogged(room: room, entries: shared)
      case .failure:
        driver.perform(driver.registry.rangeFailed(room: room))
      }
    }
  }
}

/// The answers of the cluster threads, on the service thread.
extension RoomsDriver {
  func clusterAppended(_ answers: [ClusterAppender.Answer]) {
    let now = MonotonicClock.now()
    reportingChanges(of: Set(answers.map(\.append.room))) {
      for answer in answers {
        let waited = cluster?.answered(answer.append, now: now)
        if case .success = answer.result, let waited { recordDurable(seconds: waited) }
        perform(registry.appended(answer.append, result: answer.result, now: now))
      }
    }
    requestTick(due: registry.nextTick(now: now), now: now)
  }

  func clusterLogged(room: String, entries: [SharedLogEntry]) {
    let now = MonotonicClock.now()
    reportingChanges(of: [room]) { perform(registry.logged(room: room, entries: entries, now: now)) }
    requestTick(due: registry.nextTick(room: room, now: now), now: now)
  }

  func clusterPresence(_ messages: [ReorderRedis.PresenceMessage]) {
    let now = MonotonicClock.now()
    for message in messages {
      perform(registry.remotePresence(room: message.room, node: message.node, payload: message.payload, now: now))
      requestTick(due: registry.nextTick(room: message.room, now: now), now: now)
    }
  }

  func clusterRoster(room: String, entries: [[UInt8]]) {
    let now = MonotonicClock.now()
    perform(registry.roster(room: room, entries: entries, now: now))
    requestTick(due: registry.nextTick(room: room, now: now), now: now)
  }
}
