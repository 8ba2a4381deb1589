import Foundation
import ReorderRedis

/// The presence channels of the followed rooms, on a thread and a connection of their own
/// (`SUBSCRIBE reorder:{R}:presence`): every message of another node goes to `deliver` (which
/// posts to the service thread); this node's own are dropped by `PresenceSubscriber`.
///
/// The set of channels changes between two receives (each waits at most `waitSeconds`). A lost
/// connection is made again with backoff and subscribes to every followed room again; what was
/// published meanwhile is lost, which presence may be (the roster heals joins and leaves). Its
/// reconnects are not in `reorder_redis_reconnects_total`, which counts the links'
/// (`RedisLink`: appends, tail, store, roster).
final class ClusterPresence: @unchecked Sendable {
  /// Longest wait of one receive: how late a change of the followed rooms is taken.
  static let waitSeconds = 0.1

  private let url: RedisURL
  private let node: String
  private let metrics: RedisMetrics
  private let health: ClusterHealth
  private let deliver: @Sendable ([ReorderRedis.PresenceMessage]) -> Void
  private let condition = NSCondition()
  private var wanted: Set<String> = []
  private var stopping = false

  init(
    url: RedisURL, node: String, metrics: RedisMetrics, health: ClusterHealth,
    deliver: @escaping @Sendable ([ReorderRedis.PresenceMessage]) -> Void
  ) {
    self.url = url
    self.node = node
    self.metrics = metrics
    self.health = health
    self.deliver = deliver
  }

  /// Starts the thread.
  func start() {
    let thread = Thread { [self] in run() }
    thread.name = "reorder-redis-presence"
    thread.start()
  }

  /// Follows the room's channel (any thread).
  func follow(_ room: String) {
    condition.lock()
    wanted.insert(room)
    condition.signal()
    condition.unlock()
  }

  /// Stops following the room's channel.
  func unfollow(_ room: String) {
    condition.lock()
    wanted.remove(room)
    condition.unlock()
  }

  /// Ends the thread after the receive in flight.
  func stop() {
    condition.lock()
    stopping = true
    condition.signal()
    condition.unlock()
  }

  private func run() {
    var subscriber: PresenceSubscriber?
    var backoff = RedisBackoff()
    while true {
      condition.lock()
      if wanted.isEmpty && !stopping {
        // Nothing to follow: drop the connection rather than leave old channels unread.
        subscriber?.close()
        subscriber = nil
        while wanted.isEmpty && !stopping { condition.wait() }
      }
      let rooms = wanted
      let stop = stopping
      condition.unlock()
      if stop {
        subscriber?.close()
        return
      }
      do throws(RedisError) {
        if subscriber == nil || subscriber!.isBroken {
          subscriber?.close()
          subscriber = nil
          let fresh = try PresenceSubscriber(url: url, nodeID: node, metrics: metrics)
          subscriber = fresh
        }
        let current = subscriber!
        try current.unfollow(Array(current.rooms.subtracting(rooms)))
        try current.follow(Array(rooms))
        let messages = try current.receive(waitSeconds: Self.waitSeconds)
        health.succeeded(.presence)
        backoff.succeeded()
        if !messages.isEmpty { deliver(messages) }
      } catch {
        health.failed(.presence, error)
        subscriber?.close()
        subscriber = nil
        Thread.sleep(forTimeInterval: backoff.failed())
      }
    }
  }
}
