import Foundation
import ReorderBasics
import ReorderRedis

/// Presence publishes and the rooms' rosters, on a thread and a connection of their own.
///
/// Publishes, joins and leaves are queued by the service thread and sent in batches, each kind in
/// one pipeline (joins first, then leaves, then publishes: a message that names a session reaches
/// other nodes after the roster change does), a room's own in order. A roster lists sessions by
/// node, and a node's sessions stay while its heartbeat in the room does (docs/CLUSTER.md,
/// "Rosters"), so the bookkeeping costs Redis one call per node and room per refresh however many
/// sessions there are, and each refresh is three pipelines whatever the rooms. Every
/// `refreshSeconds` the thread beats this node's heartbeat in each room it has sessions in
/// (`rosterExpirySeconds` ahead; if another node expired it meanwhile, its sessions are put again),
/// and reads the roster of every followed room, which first expires the nodes whose heartbeat is
/// past with their sessions, and answers nothing new while the roster's version is the one last
/// read. The rosters go to `deliver` (so a crashed node's sessions leave within
/// `rosterExpirySeconds` + `refreshSeconds`), the log seqs to `ClusterHealth` (each room's lag in
/// /metrics), after a `PING` that keeps `/healthz` current on a node without rooms. A newly
/// followed room's roster is read at once. While Redis is unreachable publishes are dropped
/// (presence is not data) and joins and leaves wait in `sessions` for the next refresh.
final class ClusterControl: @unchecked Sendable {
  /// How long a session stays in a roster without a refresh: with a read every `refreshSeconds`,
  /// a crashed node's sessions leave the other nodes within 9 s.
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

  /// Rooms whose sessions' put failed: the next refresh puts them all again (thread only).
  private var unput: Set<String> = []
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
          let leaves = all.filter { !$0.value.isEmpty }.map { (room: $0.key, sessions: Array($0.value.keys)) }
          if !leaves.isEmpty { settle(call { (redis) throws(RedisError) in try redis.removeRosters(leaves) }) }
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

  /// Sends a batch in three pipelines (in a Redis Cluster, each one per master): the joins, one
  /// roster call per room; then the leaves; then the publishes, so that a message naming a
  /// session reaches other nodes after the roster does. Then reads the rosters asked for.
  private func perform(_ batch: [Job]) {
    var joins: [(room: String, entries: [ClusterRosterEntry])] = []
    var joinIndex: [String: Int] = [:]
    var publishes: [(room: String, payload: [UInt8])] = []
    var reads: [String] = []
    for job in batch {
      switch job {
      case .publish(let room, let payload):
        publishes.append((room, payload))
      case .join(let room, let session, let peer):
        let entry = ClusterRosterEntry(session: session, peer: String(decoding: peer, as: UTF8.self))
        if let index = joinIndex[room] {
          joins[index].entries.append(entry)
        } else {
          joinIndex[room] = joins.count
          joins.append((room, [entry]))
        }
      case .leave:
        break
      case .read(let room):
        if !reads.contains(room) { reads.append(room) }
      }
    }
    if !joins.isEmpty {
      let expiresAt = Self.expiry()
      let put = settle(
        call { (redis) throws(RedisError) in try redis.putRosters(joins, node: node, expiresAt: expiresAt) },
        count: joins.count)
      for (index, join) in joins.enumerated() where put[index] == nil { unput.insert(join.room) }
    }
    sendLeaves()
    if !publishes.isEmpty {
      settle(call { (redis) throws(RedisError) in try redis.publishPresence(publishes, node: node) })
    }
    if !reads.isEmpty { readRosters(reads) }
  }

  private static func expiry() -> Int64 { Int64((nowSeconds() + rosterExpirySeconds) * 1000) }

  /// Keeps this node's sessions alive, sends leaves that waited, reads every followed room: one
  /// pipeline for the heartbeats, one for the rosters, one for the log seqs.
  private func refresh() {
    let mine = Array(worker.withLock { $0.sessions })
    let followed = followed()
    // A probe, so that /healthz follows Redis on a node with no rooms too.
    if let results = call({ (redis) throws(RedisError) in redis.probe() }) { health.probed(results) }
    sendLeaves()
    let expiresAt = Self.expiry()
    let beats = settle(
      call { (redis) throws(RedisError) in
        try redis.beatRosters(rooms: mine.map(\.key), node: node, expiresAt: expiresAt)
      }, count: mine.count)
    // A node that was expired (it stalled for longer than the expiry) lost its sessions, and a
    // join that failed is missing: put the room's sessions again.
    let expired = zip(mine, beats).compactMap { room, beat in
      beat == true || unput.contains(room.key)
        ? (room.key, room.value.map { ClusterRosterEntry(session: $0.key, peer: $0.value) }) : nil
    }
    unput = []
    if !expired.isEmpty {
      let put = settle(
        call { (redis) throws(RedisError) in try redis.putRosters(expired, node: node, expiresAt: expiresAt) },
        count: expired.count)
      for (index, room) in expired.enumerated() where put[index] == nil { unput.insert(room.0) }
    }
    rosters = rosters.filter { followed.contains($0.key) }
    readRosters(followed)
    guard !followed.isEmpty,
      let metas = call({ (redis) throws(RedisError) in try redis.settledMetas(rooms: followed) })
    else { return }
    var seqs: [String: UInt64] = [:]
    for (room, meta) in metas {
      if let meta = settle([meta])[0] { seqs[room] = meta.seq }
    }
    health.setLogSequences(seqs)
  }

  private func sendLeaves() {
    let pending = worker.withLock { queue in
      defer { queue.leaves = [:] }
      return queue.leaves.filter { !$0.value.isEmpty }.map { (room: $0.key, sessions: Array($0.value)) }
    }
    guard !pending.isEmpty else { return }
    let sent = settle(call { (redis) throws(RedisError) in try redis.removeRosters(pending) }, count: pending.count)
    let unsent = zip(pending, sent).filter { $0.1 == nil }.map(\.0)
    guard !unsent.isEmpty else { return }
    worker.withLock { queue in
      for leave in unsent { queue.leaves[leave.room, default: []].formUnion(leave.sessions) }
    }
  }

  /// Reads the rosters of `rooms` and delivers each (what was read last when its version is
  /// unchanged).
  private func readRosters(_ rooms: [String]) {
    guard !rooms.isEmpty else { return }
    let now = Int64(Self.nowSeconds() * 1000)
    let asked = rooms.map { (room: $0, known: rosters[$0]?.version) }
    let reads = settle(
      call { (redis) throws(RedisError) in try redis.readRosters(asked, now: now) }, count: rooms.count)
    for (room, read) in zip(rooms, reads) {
      guard let read else { continue }
      let peers = read.entries.map { $0.map { Array($0.peer.utf8) } } ?? rosters[room]?.peers ?? []
      rosters[room] = (read.version, peers)
      deliver(room, peers)
    }
  }

  /// Each value of a settled pipeline, nil for those that failed (the health says why); `count`
  /// nils when the whole call failed.
  @discardableResult
  private func settle<T>(_ results: [Result<T, RedisError>]?, count: Int = 0) -> [T?] {
    guard let results else { return Array(repeating: nil, count: count) }
    var values: [T?] = []
    for result in results {
      switch result {
      case .success(let value): values.append(value)
      case .failure(let error):
        health.failed(.control, error)
        values.append(nil)
      }
    }
    return values
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
