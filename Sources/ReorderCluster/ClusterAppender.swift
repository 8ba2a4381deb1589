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
/// `.known`, `.epoch` for an epoch mismatch, `.unavailable` for every op of a round trip that
/// failed (the rooms reject them `unavailable`; re-sent, the log answers `known` for any that
/// did get in).
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
    do {
      let outcomes = try link.run { (redis) throws(RedisError) in try redis.append(ops) }
      health.succeeded(.appender)
      return zip(batch, outcomes).map { append, outcome in
        switch outcome {
        case .applied(let seq): return (append, .success(.applied(seq)))
        case .known(let seq): return (append, .success(.known(seq)))
        case .epochMismatch(let current): return (append, .failure(.epoch(current)))
        case .stale(let until): return (append, .failure(.stale(until)))
        }
      }
    } catch {
      health.failed(.appender, error)
      return batch.map { ($0, .failure(.unavailable(error.description))) }
    }
  }
}
