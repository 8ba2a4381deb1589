import Foundation
import ReorderBasics
import ReorderRedis

/// Presence publishes and the rooms' rosters, on a thread and a connection of their own.
///
/// Publishes, joins and leaves are queued by the service thread and sent in order. A roster
/// lists sessions by node, and a node's sessions stay while its heartbeat in the room does
/// (docs/CLUSTER.md, "Rosters"), so the bookkeeping costs Redis one call per node and room per
/// refresh however many sessions there are. Every `refreshSeconds` the thread beats this node's
/// heartbeat in each room it has sessions in (`rosterExpirySeconds` ahead; if another node
/// expired it meanwhile, its sessions are put again), and reads the roster of every followed
/// room, which first expires the nodes whose heartbeat is past with their sessions, and answers
/// nothing new while the roster's version is the one last read. The rosters go to `deliver` (so
/// a crashed node's sessions leave within `rosterExpirySeconds` + `refreshSeconds`), the log
/// seqs to `ClusterHealth` (each room's lag in /metrics), after a `PING` that keeps `/healthz`
/// current on a node without rooms. A newly followed room's roster is read at once.
/// While Redis is unreachable publishes are dropped (presence is not data) and joins and leaves
/// wait in `sessions` for the next refresh.
final class ClusterControl: @unchecked Sendable {
  /// How long a session stays in a roster without a refresh: with a read every `refreshSeconds`,
  /// a crashed node's sessions leave the other nodes within 9 s (the issue asks for 10).
  static let rosterExpirySeconds = 7.0
  /// How often this node refreshes its sessions and reads its rooms' rosters.
  static let refreshSeconds = 2.0
  /// Most publishes waiting; older ones are dropped first (a newer one supersedes them anyway).
  static let publishLimit = 1_000

  private enum Job {
    case publish(room: String, payload: [UInt8])
    case join(room: String, session: String, peer: [UInt8])
    case leave(room: String, session: String)
    case read(room: String)
  }

  private let link: RedisLink
  private let node: String
  private let health: ClusterHealth
  private let followed: @Sendable () -> [String]
  private let deliver: @Sendable (String, [[UInt8]]) -> Void
  /// What the thread works from, under the worker's lock.
  private struct Queue {
    var jobs: [Job] = []
    /// This node's sessions per room, with their peer JSON: what refreshes keep alive.
    var sessions: [String: [String: String]] = [:]
    /// Leaves not yet sent to Redis (it was unreachable).
    var leaves: [String: Set<String>] = [:]
    /// When the last refresh started (`MonotonicClock` seconds).
    var lastRefresh = 0.0
  }

  /// The last roster read of each room: its version and peers (thread only).
  private var rosters: [String: (version: String, peers: [[UInt8]])] = [:]

  /// What the loop hands to the thread.
  private enum Work {
    /// Jobs to send (maybe none), then a refresh when one is due.
    case jobs([Job])
    /// Stopping: remove these sessions of this node from their rosters, then close the link.
    case stop([String: [String: String]])
  }

  private let worker = WorkerThread(name: "reorder-redis-control", state: Queue())

  init(
    link: RedisLink, node: String, health: ClusterHealth, followed: @escaping @Sendable () -> [String],
    deliver: @escaping @Sendable (String, [[UInt8]]) -> Void
  ) {
    self.link = link
    self.node = node
    self.health = health
    self.followed = followed
    self.deliver = deliver
  }

  /// Starts the thread.
  func start() {
    worker.start(
      next: { queue, stopping in
        if stopping {
          defer { queue.sessions = [:] }
          return .finish(Work.stop(queue.sessions))
        }
        let due = queue.lastRefresh + Self.refreshSeconds
        guard !queue.jobs.isEmpty || MonotonicClock.now() >= due else { return .waitUntil(due) }
        let batch = queue.jobs
        queue.jobs = []
        for job in batch {
          switch job {
          case .join(let room, let session, let peer):
            queue.sessions[room, default: [:]][session] = String(decoding: peer, as: UTF8.self)
            queue.leaves[room]?.remove(session)
          case .leave(let room, let session):
            queue.sessions[room]?[session] = nil
            if queue.sessions[room]?.isEmpty == true { queue.sessions[room] = nil }
            queue.leaves[room, default: []].insert(session)
          default: break
          }
        }
        return .run(.jobs(batch))
      },
      perform: { [self] work in
        switch work {
        case .jobs(let batch):
          perform(batch)
          let now = MonotonicClock.now()
          let due = worker.withLock { queue in
            guard now >= queue.lastRefresh + Self.refreshSeconds else { return false }
            queue.lastRefresh = now
            return true
          }
          if due { refresh() }
        case .stop(let all):
          for (room, peers) in all where !peers.isEmpty {
            call { (redis) throws(RedisError) in try redis.removeRoster(room: room, sessions: Array(peers.keys)) }
          }
          link.close()
        }
      })
  }

  /// Publishes this node's presence changes of `room`.
  func publish(room: String, payload: [UInt8]) {
    enqueue(.publish(room: room, payload: payload)) { jobs in
      let publishes = jobs.lazy.filter { if case .publish = $0 { true } else { false } }.count
      guard publishes > Self.publishLimit,
        let first = jobs.firstIndex(where: { if case .publish = $0 { true } else { false } })
      else { return }
      jobs.remove(at: first)
    }
  }

  /// Adds one of this node's sessions to the room's roster (and keeps it there).
  func join(room: String, session: String, peer: [UInt8]) { enqueue(.join(room: room, session: session, peer: peer)) }

  /// Removes one of this node's sessions from the room's roster.
  func leave(room: String, session: String) { enqueue(.leave(room: room, session: session)) }

  /// Reads the room's roster soon (the room was just followed).
  func read(room: String) { enqueue(.read(room: room)) }

  /// Ends the thread, which first removes this node's sessions from every roster, so that the
  /// other nodes see them leave at once rather than when they expire. Waits for that at most
  /// `timeoutSeconds` (the link belongs to the thread: only it may use it).
  func stop(timeoutSeconds: Double = 2) {
    worker.stop()
    worker.join(timeoutSeconds: timeoutSeconds)
  }

  private func enqueue(_ job: Job, trim: (inout [Job]) -> Void = { _ in }) {
    worker.update { queue in
      queue.jobs.append(job)
      trim(&queue.jobs)
    }
  }

  /// Unix seconds: the rosters keep wall-clock expiries, which every node compares.
  private static func nowSeconds() -> Double { Date().timeIntervalSince1970 }

  private func perform(_ batch: [Job]) {
    for job in batch {
      switch job {
      case .publish(let room, let payload):
        call { (redis) throws(RedisError) in _ = try redis.publishPresence(room: room, node: node, payload: payload) }
      case .join(let room, let session, let peer):
        call { (redis) throws(RedisError) in
          try redis.putRoster(
            room: room, node: node,
            [ClusterRosterEntry(session: session, peer: String(decoding: peer, as: UTF8.self))],
            expiresAt: Self.expiry())
        }
      case .leave:
        sendLeaves()
      case .read(let room):
        readRoster(room)
      }
    }
  }

  private static func expiry() -> Int64 { Int64((nowSeconds() + rosterExpirySeconds) * 1000) }

  /// Keeps this node's sessions alive, sends leaves that waited, reads every followed room.
  private func refresh() {
    let mine = worker.withLock { $0.sessions }
    let followed = followed()
    // A probe, so that /healthz follows Redis on a node with no rooms too.
    if let results = call({ (redis) throws(RedisError) in redis.probe() }) { health.probed(results) }
    sendLeaves()
    for (room, peers) in mine {
      call { (redis) throws(RedisError) in
        guard try redis.beatRoster(room: room, node: node, expiresAt: Self.expiry()) else { return }
        // This node was expired (it stalled for longer than the expiry): its sessions were removed.
        let entries = peers.map { ClusterRosterEntry(session: $0.key, peer: $0.value) }
        try redis.putRoster(room: room, node: node, entries, expiresAt: Self.expiry())
      }
    }
    rosters = rosters.filter { followed.contains($0.key) }
    var seqs: [String: UInt64] = [:]
    for room in followed {
      readRoster(room)
      call { (redis) throws(RedisError) in seqs[room] = try redis.meta(room: room).seq }
    }
    health.setLogSequences(seqs)
  }

  private func sendLeaves() {
    let pending = worker.withLock { queue in
      defer { queue.leaves = [:] }
      return queue.leaves
    }
    for (room, gone) in pending where !gone.isEmpty {
      let sent = call { (redis) throws(RedisError) in try redis.removeRoster(room: room, sessions: Array(gone)) }
      if sent == nil {
        worker.withLock { $0.leaves[room, default: []].formUnion(gone) }
      }
    }
  }

  /// Reads `room`'s roster and delivers it (what was read last when the version is unchanged).
  private func readRoster(_ room: String) {
    let now = Int64(Self.nowSeconds() * 1000)
    let known = rosters[room]
    guard
      let read = call({ (redis) throws(RedisError) in try redis.readRoster(room: room, now: now, known: known?.version)
      })
    else { return }
    let peers = read.entries.map { $0.map { Array($0.peer.utf8) } } ?? known?.peers ?? []
    rosters[room] = (read.version, peers)
    deliver(room, peers)
  }

  /// Runs `body` on the link; nil when it failed (the health says why).
  @discardableResult
  private func call<T>(_ body: (any RedisCommands) throws(RedisError) -> T) -> T? {
    do {
      let value = try link.run(body)
      health.succeeded(.control)
      return value
    } catch {
      health.failed(.control, error)
      return nil
    }
  }
}
