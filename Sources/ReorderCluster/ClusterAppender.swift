import Foundation
import ReorderBasics
import ReorderRedis
import ReorderRooms

/// Appends the rooms' ops to the shared log on a thread of its own (never the service thread).
///
/// Whatever is queued when a round trip ends goes out as the next one: one pipeline of
/// `reorder_append` calls (at most `batchLimit`). With `appendfsync always` Redis fsyncs once per
/// pass for everything that pass carries, so one op per round trip would cap a node at one fsync
/// per op (about 500 ops/s on the machine docs/CLUSTER.md measured); a batch shares it.
///
/// Each answer goes back through `deliver` (which posts to the service thread): `.applied` /
/// `.known`, `.epoch` for an epoch mismatch, `.unavailable` for every op whose Redis node could
/// not be reached (over a Redis Cluster, only the ops of that master's rooms; the rooms reject
/// them `unavailable`; re-sent, the log answers `known` for any that did get in).
public final class ClusterAppender: @unchecked Sendable {
  public typealias Answer = (append: SharedAppend, result: Result<AppendReply, SharedLogError>)

  /// Most ops in one pipeline.
  static let batchLimit = 500

  private let link: RedisLink
  private let health: ClusterHealth
  private let deliver: @Sendable ([Answer]) -> Void
  /// The queued appends, and the thread.
  private let worker = WorkerThread<[SharedAppend]>(name: "reorder-redis-append", state: [])

  init(link: RedisLink, health: ClusterHealth, deliver: @escaping @Sendable ([Answer]) -> Void) {
    self.link = link
    self.health = health
    self.deliver = deliver
  }

  /// Starts the thread.
  func start() {
    worker.start(
      next: { queued, stopping in
        if stopping {
          defer { queued = [] }
          return .finish((queued, last: true))
        }
        guard !queued.isEmpty else { return .wait }
        let batch = Array(queued.prefix(Self.batchLimit))
        queued.removeFirst(batch.count)
        return .run((batch, last: false))
      },
      perform: { [self] batch, last in
        guard last else {
          deliver(roundTrip(batch))
          return
        }
        if !batch.isEmpty { deliver(batch.map { ($0, .failure(.unavailable("the node is stopping"))) }) }
        link.close()
      })
  }

  /// Queues an append (any thread; never waits for Redis).
  func append(_ append: SharedAppend) {
    worker.update { $0.append(append) }
  }

  /// Ends the thread after the round trip in flight; queued appends are answered `unavailable`.
  func stop() {
    worker.stop()
  }

  /// One pipeline for `batch`, and its answers in order.
  private func roundTrip(_ batch: [SharedAppend]) -> [Answer] {
    let ops = batch.map {
      ClusterAppend(
        room: $0.room, epoch: $0.epoch, key: $0.key, node: $0.node, payload: $0.payload, creates: $0.creates,
        until: $0.until)
    }
    let results: [Result<AppendOutcome, RedisError>]
    do {
      results = try link.run { (redis) throws(RedisError) in try redis.settledAppend(ops) }
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
      case .success(.applied(let seq)): (append, .success(.applied(seq)))
      case .success(.known(let seq)): (append, .success(.known(seq)))
      case .success(.epochMismatch(let current)): (append, .failure(.epoch(current)))
      case .success(.stale(let until)): (append, .failure(.stale(until)))
      case .failure(let error): (append, .failure(.unavailable(error.description)))
      }
    }
  }
}
