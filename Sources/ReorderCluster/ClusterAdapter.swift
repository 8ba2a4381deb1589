import ReorderBasics
import ReorderRedis
import ReorderRooms

/// Cluster mode's side of the driver: performs the registry's `.log` and `.presence` actions on threads of
/// their own and hands the answers back to the service thread (`PortAnswers.post`). Nothing
/// here waits on the service thread: `perform` only queues.
///
/// - appends: `ClusterAppender` (one pipeline per round trip of everything queued);
/// - the followed rooms' logs: `ClusterTail` (each room's appends channel, and reads of its log);
/// - presence channels: `ClusterPresence` (`SSUBSCRIBE`);
/// - publishes, rosters, the rooms' log seqs: `ClusterControl`;
/// - the board list's summaries and `board.changed`: `ClusterSummaries`.
///
/// Each has its own connections (`RedisLink`, reconnecting with backoff), to one Redis or to every
/// master of a Redis Cluster (`RedisTarget`); their failures make `/healthz` `degraded` (`health`).
public final class ClusterAdapter: LogPort, PresencePort, @unchecked Sendable {
  /// This node in the cluster (the registry's).
  public let node: RoomNode
  /// Whether each part reaches Redis, and the rooms' log seqs.
  public let health: ClusterHealth
  /// Every connection's round trips and reconnects (`/metrics`).
  public let metrics: RedisMetrics
  /// The rooms' storage port over Redis (loads, catch-up reads, leased snapshots).
  public let storage: RedisRoomStorage
  /// The board list's summaries and the lease holder's `board.changed` webhooks.
  public let summaries: ClusterSummaries
  private let appender: ClusterAppender
  private let tail: ClusterTail
  private let presence: ClusterPresence
  private let control: ClusterControl

  /// Prepares the threads for `target` (nothing connects before `start()`). `retainedOps`: the
  /// ops kept before each snapshot when trimming (`ServerConfiguration.retainedOps`); `replicas`:
  /// acknowledge ops once on that many replicas (`--redis-wait-replicas`), and apply the log only
  /// up to each room's replicated watermark.
  public init(target: RedisTarget, node: RoomNode, retainedOps: Int, replicas: ReplicaWait? = nil) {
    self.node = node
    let health = ClusterHealth()
    let metrics = RedisMetrics()
    let sink = AnswerSink()
    self.health = health
    self.metrics = metrics
    self.sink = sink
    func link() -> RedisLink {
      RedisLink(target: target, metrics: metrics, prepare: { (redis) throws(RedisError) in try redis.loadFunctions() })
    }
    storage = RedisRoomStorage(
      link: link(), node: node.node, retainedOps: retainedOps, gated: replicas != nil, health: health)
    let summaries = ClusterSummaries(link: link(), node: node.node, health: health)
    self.summaries = summaries
    let appendedAt = AppendClock()
    self.appendedAt = appendedAt
    appender = ClusterAppender(link: link(), health: health, replicas: replicas) { [sink] answers in
      sink.post { receiver in
        let now = MonotonicClock.now()
        for answer in answers {
          let waited = appendedAt.answered(answer.append, now: now)
          if case .success = answer.result, let waited { receiver.logCommitWaited(seconds: waited) }
        }
        summaries.reportingChanges(of: Set(answers.map(\.append.room)), to: receiver) {
          receiver.logAppended(answers)
        }
      }
    }
    let tail = ClusterTail(
      link: link(), subscriber: ShardedSubscriber(target: target, metrics: metrics), gated: replicas != nil,
      health: health,
      deliver: { [sink] room, entries in
        sink.post { receiver in
          summaries.reportingChanges(of: [room], to: receiver) { receiver.logEntries(room: room, entries: entries) }
        }
      },
      changed: { [sink] room, epoch in
        sink.post { $0.logHistoryChanged(room: room, epoch: epoch) }
      })
    self.tail = tail
    presence = ClusterPresence(target: target, node: node.node, metrics: metrics, health: health) { [sink] messages in
      sink.post { receiver in
        for message in messages {
          receiver.presenceReceived(room: message.room, node: message.node, payload: message.payload)
        }
      }
    }
    control = ClusterControl(
      link: link(), node: node.node, health: health, followed: { tail.rooms },
      deliver: { [sink] room, entries in
        sink.post { $0.rosterRead(room: room, entries: entries) }
      })
  }

  /// Starts the threads.
  public func start() {
    appender.start()
    tail.start()
    presence.start()
    control.start()
    summaries.start()
  }

  /// Stops the threads; this node's sessions leave the rosters. Not on the service thread.
  public func stop() {
    control.stop()
    summaries.stop()
    appender.stop()
    tail.stop()
    presence.stop()
  }

  /// When each append in flight was queued: its wait for the log goes to
  /// `reorder_op_commit_seconds`, as the store's commit does on one node.
  private let appendedAt: AppendClock

  /// Queues one action of the registry's log (service thread; never waits).
  public func perform(_ action: LogAction) {
    switch action {
    case .append(let append):
      appendedAt.queued(append, now: MonotonicClock.now())
      appender.append(append)
    case .readRange(let room, let after, let through):
      // The room asks for a gap it saw (through > after); at most 10,000 entries a read, the
      // rest is asked for again with the next entry.
      let limit = through > after ? Int(min(through - after, 10_000)) : 1
      storage.entries(room: room, after: after, limit: limit) { [weak self] result in
        self?.rangeRead(room: room, through: through, result: result)
      }
    case .follow(let room, let after):
      tail.follow(room, after: after, epoch: receiver?.logFollowEpoch(room: room))
    case .unfollow(let room):
      tail.unfollow(room)
      summaries.forget(room: room)
      receiver?.logRoomGone(room)
    }
  }

  /// Never called: the shared log answers an append once the op is stored (`.applied`, `.known`),
  /// never `.ordered`, so no room has a record of its own to keep.
  public func record(room: String, entries: [LogEntry]) {
    Log.log(.error, "records handed to the shared log", [("room", room), ("count", "\(entries.count)")])
    assertionFailure("the shared log answers no append .ordered: room \(room) has nothing to record")
  }

  /// Written by the room's lease holder only (`RedisRoomStorage`), which then trims the log. A
  /// failure stops nothing: the log holds every op and the compactions are in its history (every
  /// replay compacts at the same seqs), so the room and its members stay, and the next snapshot is
  /// due at a later boundary.
  public func snapshot(room: String, snapshot: RoomSnapshot) {
    let seq = snapshot.seq
    storage.saveSnapshot(room: room, snapshot: snapshot) { result in
      guard case .failure(let error) = result else { return }
      Log.log(.warn, "snapshot not stored", [("room", room), ("seq", "\(seq)"), ("error", "\(error)")])
    }
  }

  /// Appends go out as the appender's pipeline takes them, not per batch of actions.
  public func batchEnded() {}

  /// Queues one action of the registry's presence channel (service thread; never waits).
  public func perform(_ action: PresenceAction) {
    switch action {
    case .follow(let room):
      presence.follow(room)
      control.read(room: room)
    case .unfollow(let room):
      presence.unfollow(room)
    case .publish(let room, let message):
      control.publish(room: room, payload: message.encoded())
    case .rosterJoin(let room, let session, let peer):
      control.join(room: room, session: session, peer: peer)
    case .rosterLeave(let room, let session):
      control.leave(room: room, session: session)
    }
  }

  /// Where answers go: set once the driver is made (the driver needs `storage` first).
  public var receiver: (any PortAnswers)? {
    get { sink.receiver }
    set { sink.receiver = newValue }
  }
  private let sink: AnswerSink

  /// The answers' receiver, weakly: it owns this adapter.
  private final class AnswerSink: @unchecked Sendable {
    weak var receiver: (any PortAnswers)?

    /// Runs `body` with the receiver on the service thread, if there still is one.
    func post(_ body: @escaping @Sendable (any PortAnswers) -> Void) {
      guard let receiver else { return }
      receiver.post { [weak receiver] in
        if let receiver { body(receiver) }
      }
    }
  }

  private func rangeRead(room: String, through: UInt64, result: Result<[LogEntry], RoomStoreError>) {
    sink.post { receiver in
      switch result {
      case .success(let entries):
        let shared = entries.filter { $0.seq <= through }.map {
          AppendedEntry(seq: $0.seq, node: "", key: [], payload: $0.payload)
        }
        self.summaries.reportingChanges(of: [room], to: receiver) {
          receiver.logEntries(room: room, entries: shared)
        }
      case .failure:
        receiver.logRangeFailed(room: room)
      }
    }
  }
}

/// When each append in flight was queued, by ticket. Service thread only (the adapter queues
/// there, and the appender's answers are counted there).
final class AppendClock: @unchecked Sendable {
  private var queuedAt: [UInt64: Double] = [:]

  /// `append` was queued at `now`.
  func queued(_ append: LogAppend, now: Double) { queuedAt[append.ticket] = now }

  /// The wait of an append that was answered, or nil if unknown.
  func answered(_ append: LogAppend, now: Double) -> Double? {
    queuedAt.removeValue(forKey: append.ticket).map { now - $0 }
  }
}
