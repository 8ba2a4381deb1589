import Foundation
import ReorderBasics
import ReorderRedis

/// The presence channels of the followed rooms, on a thread and a connection of their own
/// (`SSUBSCRIBE reorder:{R}:presence`, a shard channel): every message of another node goes to `deliver` (which
/// posts to the service thread); this node's own are dropped by `PresenceSubscriber`.
///
/// The set of channels changes between two receives (each waits at most `waitSeconds`). A lost
/// connection is made again with backoff and subscribes to its followed rooms again; what was
/// published meanwhile is lost, which presence may be (the roster heals joins and leaves). Its
/// reconnects are not in `reorder_redis_reconnects_total`, which counts the links'
/// (`RedisLink`: appends, tail, store, roster).
final class ClusterPresence: @unchecked Sendable {
  /// Longest wait of one receive: how late a change of the followed rooms is taken.
  static let waitSeconds = 0.1

  private let target: RedisTarget
  private let node: String
  private let metrics: RedisMetrics
  private let health: ClusterHealth
  private let deliver: @Sendable ([ReorderRedis.PresenceMessage]) -> Void
  /// What the thread's loop decides on, under the worker's lock.
  private struct Channels {
    /// The rooms whose channels to follow.
    var wanted: Set<String> = []
    /// Whether the thread holds a subscriber connection.
    var connected = false
  }
  private let worker = WorkerThread(name: "reorder-redis-presence", state: Channels())
  /// The subscriber connection; the thread's only.
  private var subscriber: PresenceSubscriber?
  /// The reconnect backoff; the thread's only.
  private var backoff = RedisBackoff()

  init(
    target: RedisTarget, node: String, metrics: RedisMetrics, health: ClusterHealth,
    deliver: @escaping @Sendable ([ReorderRedis.PresenceMessage]) -> Void
  ) {
    self.target = target
    self.node = node
    self.metrics = metrics
    self.health = health
    self.deliver = deliver
  }

  /// Starts the thread.
  func start() {
    worker.start(
      next: { channels, stopping in
        if stopping { return .finish(Set<String>()) }
        // Nothing to follow: drop the connection (an empty set) rather than leave old channels unread.
        if channels.wanted.isEmpty { return channels.connected ? .run([]) : .wait }
        return .run(channels.wanted)
      },
      perform: { [self] (rooms: Set<String>) in
        if rooms.isEmpty {
          subscriber?.close()
          subscriber = nil
        } else {
          receive(rooms)
        }
        let connected = subscriber != nil
        worker.withLock { $0.connected = connected }
      })
  }

  /// Follows the room's channel (any thread).
  func follow(_ room: String) {
    worker.update { _ = $0.wanted.insert(room) }
  }

  /// Stops following the room's channel.
  func unfollow(_ room: String) {
    worker.withLock { _ = $0.wanted.remove(room) }
  }

  /// Ends the thread after the receive in flight.
  func stop() {
    worker.stop()
  }

  /// One receive on the channels of `rooms` (following them first); thread only.
  private func receive(_ rooms: Set<String>) {
    let current = subscriber ?? PresenceSubscriber(target: target, nodeID: node, metrics: metrics)
    subscriber = current
    do throws(RedisError) {
      current.unfollow(Array(current.rooms.subtracting(rooms)))
      current.follow(Array(rooms))
      let messages = try current.receive(waitSeconds: Self.waitSeconds)
      health.succeeded(.presence)
      backoff.succeeded()
      if !messages.isEmpty { deliver(messages) }
    } catch {
      health.failed(.presence, error)
      current.close()
      // A stop ends the backoff's wait.
      worker.pause(seconds: backoff.failed())
    }
  }
}
