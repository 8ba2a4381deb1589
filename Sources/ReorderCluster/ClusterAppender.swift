import Foundation
import ReorderBasics
import ReorderRedis
import ReorderRooms

/// How long an append waits for Redis replicas before it is acknowledged
/// (`--redis-wait-replicas`): `WAIT count milliseconds` after each round trip of appends.
public struct ReplicaWait: Sendable, Equatable {
  /// Replicas that must have every op before it is acknowledged.
  public var count: Int
  /// The longest wait for them; then the ops are rejected `unavailable` (they may be in the log:
  /// re-sent, they are answered `known` and waited for again).
  public var milliseconds: Int

  /// A wait for `count` replicas, at most `milliseconds`.
  public init(count: Int, milliseconds: Int = 1_000) {
    self.count = count
    self.milliseconds = milliseconds
  }
}

/// Appends the rooms' ops to the shared log on a thread of its own (never the service thread).
///
/// Whatever is queued when a round trip ends goes out as the next one (at most `batchLimit` ops):
/// one pipeline with one `reorder_append_ops` call per room, its ops in order. With `appendfsync
/// always` Redis fsyncs once per pass for everything that pass carries, so one op per round trip
/// would cap a node at one fsync per op (about 500 ops/s on the machine docs/CLUSTER.md measured);
/// a batch shares it, and one function call per room shares the call's cost.
///
/// With a `ReplicaWait`, the same connection then sends `WAIT` (one per Redis node the batch
/// wrote to): only ops on enough replicas are acknowledged, and each room's replicated watermark
/// is raised to its highest such op (`reorder_replicated`) after the answers went out; other
/// nodes apply a room's log only up to its watermark (`ClusterTail`, `RedisRoomStorage`), so a
/// failover to a replica never takes back an op a node applied. A watermark that could not be
/// written is written again with the next round trip, or after `markRetrySeconds`.
///
/// Each answer goes back through `deliver` (which posts to the service thread): `.applied` /
/// `.known`, `.epoch` for an epoch mismatch, `.unavailable` for every op whose Redis node could
/// not be reached (over a Redis Cluster, only the ops of that master's rooms) or that did not
/// reach its replicas in time (the rooms reject them `unavailable`; re-sent, the log answers
/// `known` for any that did get in).
public final class ClusterAppender: @unchecked Sendable {
  /// Most ops in one pipeline.
  static let batchLimit = 500
  /// How soon watermarks that could not be written are tried again when no append comes.
  static let markRetrySeconds = 0.2

  private let link: RedisLink
  private let health: ClusterHealth
  private let replicas: ReplicaWait?
  private let deliver: @Sendable ([LogAnswer]) -> Void

  /// The queued appends and the watermarks to write, under the worker's lock.
  private struct Queue {
    var appends: [LogAppend] = []
    var marks: [String: UInt64] = [:]
    var retryAt = 0.0
  }
  private let worker = WorkerThread(name: "reorder-redis-append", state: Queue())

  init(
    link: RedisLink, health: ClusterHealth, replicas: ReplicaWait? = nil,
    deliver: @escaping @Sendable ([LogAnswer]) -> Void
  ) {
    self.link = link
    self.health = health
    self.replicas = replicas
    self.deliver = deliver
  }

  /// Starts the thread.
  func start() {
    worker.start(
      next: { queue, stopping in
        if stopping {
          defer { queue.appends = [] }
          return .finish((queue.appends, marks: [String: UInt64](), last: true))
        }
        if !queue.appends.isEmpty {
          let batch = Array(queue.appends.prefix(Self.batchCount(queue.appends)))
          queue.appends.removeFirst(batch.count)
          defer { queue.marks = [:] }
          return .run((batch, marks: queue.marks, last: false))
        }
        guard !queue.marks.isEmpty else { return .wait }
        guard MonotonicClock.now() >= queue.retryAt else { return .waitUntil(queue.retryAt) }
        defer { queue.marks = [:] }
        return .run(([], marks: queue.marks, last: false))
      },
      perform: { [self] batch, marks, last in
        guard last else {
          var marks = marks
          if !batch.isEmpty { deliver(roundTrip(batch, marks: &marks)) }
          mark(marks)
          return
        }
        if !batch.isEmpty { deliver(batch.map { ($0, .failure(.unavailable("the node is stopping"))) }) }
        link.close()
      })
  }

  /// How many of the queued appends the next round trip takes: `batchLimit`, and the rest of the
  /// run of the last one's room (at most `runLimit` more). A room's ops queued together (the ops of
  /// one API request, made each on the ones before it) then go out in one `reorder_append_ops`
  /// call: the log takes them all or none, never an op without the ones it was made after.
  static func batchCount(_ queued: [LogAppend]) -> Int {
    var count = min(batchLimit, queued.count)
    guard count > 0 else { return 0 }
    let room = queued[count - 1].room
    while count < queued.count, count < batchLimit + runLimit, queued[count].room == room { count += 1 }
    return count
  }

  /// The most appends past `batchLimit` a round trip takes to keep a room's run together: the ops
  /// of one API request (`POST …/ops` takes at most 1,000).
  static let runLimit = 1_000

  /// Queues an append (any thread; never waits for Redis).
  func append(_ append: LogAppend) {
    worker.update { $0.appends.append(append) }
  }

  /// Ends the thread after the round trip in flight; queued appends are answered `unavailable`.
  func stop() {
    worker.stop()
  }

  /// One pipeline for `batch` (and its `WAIT`s), and its answers in order; the watermarks its
  /// acknowledged ops raise go into `marks`.
  private func roundTrip(_ batch: [LogAppend], marks: inout [String: UInt64]) -> [LogAnswer] {
    let ops = batch.map {
      ClusterAppend(
        room: $0.room, epoch: $0.epoch, key: $0.key, node: $0.node, payload: $0.payload, creates: $0.creates,
        until: $0.until)
    }
    var results: [Result<AppendOutcome, RedisError>]
    do {
      results = try link.run { (redis) throws(RedisError) in
        let results = try redis.settledAppend(ops)
        guard let replicas else { return results }
        return Self.waited(results, ops: ops, replicas: replicas, redis: redis)
      }
    } catch {
      results = batch.map { _ in .failure(error) }
    }
    let failure = results.lazy.compactMap { result -> RedisError? in
      if case .failure(let error) = result, error.isConnectionFailure { return error }
      return nil
    }.first
    if let failure { health.failed(.appender, failure) } else { health.succeeded(.appender) }
    return zip(batch, results).map { append, result in
      switch result {
      case .success(.applied(let seq)), .success(.known(let seq)):
        if replicas != nil { marks[append.room] = max(marks[append.room] ?? 0, seq) }
        if case .success(.known) = result { return (append, .success(.known(seq))) }
        return (append, .success(.applied(seq)))
      case .success(.epochMismatch(let current)): return (append, .failure(.epoch(current)))
      case .success(.stale(let until)): return (append, .failure(.stale(until)))
      case .failure(let error): return (append, .failure(.unavailable(error.description)))
      }
    }
  }

  /// `results` after `WAIT` on each node the ops went to: an op whose node's replicas did not all
  /// acknowledge in time fails.
  private static func waited(
    _ results: [Result<AppendOutcome, RedisError>], ops: [ClusterAppend], replicas: ReplicaWait,
    redis: any RedisCommands
  ) -> [Result<AppendOutcome, RedisError>] {
    func logged(_ result: Result<AppendOutcome, RedisError>) -> Bool {
      switch result {
      case .success(.applied), .success(.known): true
      default: false
      }
    }
    let keys = Set(zip(ops, results).filter { logged($1) }.map { ClusterKeys(room: $0.0.room).meta })
    guard !keys.isEmpty else { return results }
    let waits = redis.waitReplicas(replicas.count, milliseconds: replicas.milliseconds, keys: Array(keys))
    return zip(ops, results).map { op, result in
      guard logged(result) else { return result }
      switch waits[ClusterKeys(room: op.room).meta] {
      case .success(let acknowledged) where acknowledged >= replicas.count:
        return result
      case .success(let acknowledged):
        return .failure(
          .server(
            command: "WAIT",
            message: "the op reached \(acknowledged) of \(replicas.count) replicas in \(replicas.milliseconds) ms"))
      case .failure(let error):
        return .failure(error)
      case nil:
        return .failure(.unexpectedReply(command: "WAIT", reply: "no answer for the room's node"))
      }
    }
  }

  /// Writes the watermarks; those that could not be are queued to be written again.
  private func mark(_ marks: [String: UInt64]) {
    guard !marks.isEmpty else { return }
    let failed: [String]
    do {
      failed = try link.run { (redis) throws(RedisError) in try redis.markReplicated(marks) }
    } catch {
      failed = Array(marks.keys)
    }
    guard !failed.isEmpty else { return }
    worker.update { queue in
      for room in failed { queue.marks[room] = max(queue.marks[room] ?? 0, marks[room]!) }
      queue.retryAt = MonotonicClock.now() + Self.markRetrySeconds
    }
  }
}
