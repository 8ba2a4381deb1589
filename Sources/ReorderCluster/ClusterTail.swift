import Foundation
import ReorderBasics
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
///
/// Whole-board changes (the API's `PUT` replacing a board, `DELETE`) rewrite a room's keys
/// rather than append to its log, so the tail also checks each followed room's epoch in `meta`
/// (one pipelined `HGET` per room) after a read, at most every `epochCheckSeconds`, and at once
/// after a read that returned an entry of another epoch (entries carry theirs). When the epoch is
/// not the one the room was followed with (or gone), the entries of that read are not delivered,
/// the room is paused (not read) and `changed` says what the log holds; the registry answers with
/// a new `follow` (the same history, or the reloaded board) or an `unfollow` (deleted). Checking
/// after the read, not before, is what keeps a replaced history's entries from reaching the old
/// replica: whatever a read returned after the change, the check that follows it sees the change.
final class ClusterTail: @unchecked Sendable {
  /// Longest block of one read: how late a newly followed room's first remote entries can be.
  static let blockMilliseconds = 100
  /// Most time between two checks of the followed rooms' epochs: how late a replaced or deleted
  /// board is noticed by a node that did not make the change (plus one block).
  static let epochCheckSeconds = 0.1

  /// A followed room.
  private struct Follow {
    /// The last delivered seq.
    var seq: UInt64
    /// The follow it belongs to.
    var generation: UInt64
    /// The epoch its replica holds; nil: take the log's as it comes (a room that has applied
    /// nothing, or does not know its epoch).
    var epoch: String?
    /// Not read until followed again (the log's epoch changed).
    var paused = false
  }

  private let link: RedisLink
  private let health: ClusterHealth
  private let deliver: @Sendable (String, [SharedLogEntry]) -> Void
  private let changed: @Sendable (String, String?) -> Void
  /// The followed rooms, under the worker's lock.
  private struct Follows {
    var positions: [String: Follow] = [:]
    var generation: UInt64 = 0
  }
  private let worker = WorkerThread(name: "reorder-redis-tail", state: Follows())
  /// When the epochs were last checked; the thread's only.
  private var lastCheck = 0.0

  init(
    link: RedisLink, health: ClusterHealth, deliver: @escaping @Sendable (String, [SharedLogEntry]) -> Void,
    changed: @escaping @Sendable (String, String?) -> Void
  ) {
    self.link = link
    self.health = health
    self.deliver = deliver
    self.changed = changed
  }

  /// Starts the thread.
  func start() {
    worker.start(
      next: { follows, stopping in
        if stopping { return .finish([String: Follow]?.none) }
        guard !follows.positions.values.allSatisfy(\.paused) else { return .wait }
        return .run(follows.positions.filter { !$0.value.paused })
      },
      perform: { [self] asked in
        guard let asked else {
          link.close()
          return
        }
        read(asked)
      })
  }

  /// Follows `room` from the entry after `after`, as a replica of history `epoch` (nil: whatever
  /// the log holds) (any thread).
  func follow(_ room: String, after: UInt64, epoch: String?) {
    worker.update { follows in
      follows.generation += 1
      follows.positions[room] = Follow(seq: after, generation: follows.generation, epoch: epoch)
    }
  }

  /// Stops following `room`.
  func unfollow(_ room: String) {
    worker.withLock { $0.positions[room] = nil }
  }

  /// The rooms followed now.
  var rooms: [String] {
    worker.withLock { Array($0.positions.keys) }
  }

  /// Ends the thread after the read in flight.
  func stop() {
    worker.stop()
  }

  /// What a read brought for one room, decided under the lock.
  private enum Outcome {
    /// Followed again, or no more, meanwhile: nothing to do.
    case stale
    /// The log's epoch is not the replica's: the room is paused.
    case changed(String?)
    /// Deliver the read's entries.
    case deliver
  }

  /// One read of the `asked` rooms, and its entries delivered; thread only.
  private func read(_ asked: [String: Follow]) {
    do {
      let read = try link.run { (redis) throws(RedisError) in
        try redis.tail(asked.mapValues(\.seq), blockMilliseconds: Self.blockMilliseconds)
      }
      let now = MonotonicClock.now()
      let foreign = read.contains { room, entries in
        entries.contains { $0.epoch != nil && asked[room]?.epoch != nil && $0.epoch != asked[room]?.epoch }
      }
      var epochs: [String: String?]?
      if foreign || now - lastCheck >= Self.epochCheckSeconds {
        let rooms = Array(asked.keys)
        epochs = try link.run { (redis) throws(RedisError) in try redis.epochs(rooms: rooms) }
        lastCheck = now
      }
      health.succeeded(.tail)
      for (room, follow) in asked {
        let entries = read[room] ?? []
        let outcome = worker.withLock { follows -> Outcome in
          guard let current = follows.positions[room], current.generation == follow.generation else { return .stale }
          if let epochs, let logEpoch = epochs[room] {
            if current.epoch == nil {
              follows.positions[room]!.epoch = logEpoch
            } else if logEpoch != current.epoch {
              follows.positions[room]!.paused = true
              return .changed(logEpoch)
            }
          }
          if let last = entries.last { follows.positions[room]!.seq = max(current.seq, last.seq) }
          return .deliver
        }
        switch outcome {
        case .stale: continue
        case .changed(let logEpoch): changed(room, logEpoch)
        case .deliver: if !entries.isEmpty { deliver(room, entries.map { SharedLogEntry($0) }) }
        }
      }
    } catch {
      health.failed(.tail, error)
      // The link throws at once while its backoff waits: pause rather than spin.
      worker.pause(seconds: Double(Self.blockMilliseconds) / 1000)
    }
  }
}
