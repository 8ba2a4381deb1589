import Foundation
import ReorderRedis
import ReorderRooms

/// Tails the logs of the rooms this node follows on a thread and a connection of its own
/// (`XREAD BLOCK` over every followed room at once), handing each batch of entries to `deliver`
/// (which posts to the service thread).
///
/// The set of rooms changes under a blocked read: a read blocks at most `blockMilliseconds`, and
/// the next one takes the new set (a room followed meanwhile starts from the seq it was loaded
/// at, so nothing is missed, only delayed by up to that block). A read whose room was followed
/// again meanwhile does not move that room's position. While Redis is unreachable the thread
/// retries with the link's backoff and resumes from where each room stood.
final class ClusterTail: @unchecked Sendable {
  /// Longest block of one read: how late a newly followed room's first remote entries can be.
  static let blockMilliseconds = 100

  private let link: RedisLink
  private let health: ClusterHealth
  private let deliver: @Sendable (String, [SharedLogEntry]) -> Void
  private let condition = NSCondition()
  /// Each followed room's last delivered seq, and the follow it belongs to.
  private var positions: [String: (seq: UInt64, generation: UInt64)] = [:]
  private var generation: UInt64 = 0
  private var stopping = false

  init(link: RedisLink, health: ClusterHealth, deliver: @escaping @Sendable (String, [SharedLogEntry]) -> Void) {
    self.link = link
    self.health = health
    self.deliver = deliver
  }

  /// Starts the thread.
  func start() {
    let thread = Thread { [self] in run() }
    thread.name = "reorder-redis-tail"
    thread.start()
  }

  /// Follows `room` from the entry after `after` (any thread).
  func follow(_ room: String, after: UInt64) {
    condition.lock()
    generation += 1
    positions[room] = (after, generation)
    condition.signal()
    condition.unlock()
  }

  /// Stops following `room`.
  func unfollow(_ room: String) {
    condition.lock()
    positions[room] = nil
    condition.unlock()
  }

  /// The rooms followed now.
  var rooms: [String] {
    condition.lock()
    defer { condition.unlock() }
    return Array(positions.keys)
  }

  /// Ends the thread after the read in flight.
  func stop() {
    condition.lock()
    stopping = true
    condition.signal()
    condition.unlock()
  }

  private func run() {
    while true {
      condition.lock()
      while positions.isEmpty && !stopping { condition.wait() }
      if stopping {
        condition.unlock()
        link.close()
        return
      }
      let asked = positions
      condition.unlock()
      do {
        let read = try link.run { (redis) throws(RedisError) in
          try redis.tail(asked.mapValues(\.seq), blockMilliseconds: Self.blockMilliseconds)
        }
        health.succeeded(.tail)
        for (room, entries) in read {
          guard let last = entries.last else { continue }
          condition.lock()
          if let current = positions[room], current.generation == asked[room]?.generation {
            positions[room] = (max(current.seq, last.seq), current.generation)
          }
          condition.unlock()
          deliver(room, entries.map { SharedLogEntry($0) })
        }
      } catch {
        health.failed(.tail, error)
        // The link throws at once while its backoff waits: pause rather than spin.
        Thread.sleep(forTimeInterval: Double(Self.blockMilliseconds) / 1000)
      }
    }
  }
}
