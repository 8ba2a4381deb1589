import Foundation
import ReorderBasics
import ReorderRedis
import ReorderRooms

/// Tails the logs of the rooms this node follows, on a thread of its own, and hands each batch of
/// entries to `deliver` (which posts to the service thread). The same on one Redis and on a Redis
/// Cluster: every command it sends names one room's keys or channel.
///
/// - Each call of `reorder_append_ops` publishes the entries it logged on the room's appends shard
///   channel (one `ClusterNotice`); the tail subscribes to the followed rooms' channels (`ShardedSubscriber`,
///   each on its slot's master) and delivers an entry that follows the room's position at once.
/// - Pub/sub loses what is published while a channel is not subscribed (before its confirmation,
///   after a lost connection, while its slot moves), so the tail reads the log (`XRANGE`, one
///   pipeline for the rooms concerned) after a room's subscription is confirmed, when a notice
///   skips seqs, and when the rooms' metas (checked at least every `checkSeconds`) show seqs the
///   tail has not delivered.
/// - Whole-board changes (the API's `PUT` replacing a board, `DELETE`, a restore) rewrite a
///   room's keys rather than append to its log, and publish `changed` on its appends channel. The
///   metas' check also compares each room's epoch with the one its replica holds, and runs at once
///   after such a notice or an entry of another epoch (entries carry theirs; such entries are
///   never delivered). When the epoch is not the room's (or gone), the
///   room is paused (not read) and `changed` says what the log holds; the registry answers with a
///   new `follow` (the same history, or the reloaded board) or an `unfollow` (deleted). The check
///   runs after the pass's reads, so whatever a read returned after a change, the check that
///   follows it sees the change before anything is delivered.
///
/// With `gated` (the nodes wait for replicas, `ReplicaWait`) a room's log is delivered only up to
/// its replicated watermark (`reorder_replicated`, read with the metas and published on the
/// appends channel as it rises): entry notices are not delivered, and the log is read when the
/// watermark passes the room's position. So no node applies an op a failover could take back.
///
/// While Redis is unreachable the thread retries with backoff and resumes from where each room
/// stood.
final class ClusterTail: @unchecked Sendable {
  /// Longest wait for notices in one pass: how late a change of the followed rooms is taken.
  static let waitSeconds = 0.1
  /// Most time between two checks of the followed rooms' metas (one pipelined `HMGET` per room):
  /// how late a lost notice is noticed. A replaced or deleted board is noticed at once, from the
  /// `changed` notice its write publishes (or at this check, when that notice was lost).
  static let checkSeconds = 1.0
  /// Most entries of one room one read returns (the rest come with the next pass).
  static let readLimit = 1000

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
  private let subscriber: ShardedSubscriber
  private let gated: Bool
  private let health: ClusterHealth
  private let deliver: @Sendable (String, [AppendedEntry]) -> Void
  private let changed: @Sendable (String, String?) -> Void
  /// The followed rooms, under the worker's lock.
  private struct Follows {
    var positions: [String: Follow] = [:]
    var generation: UInt64 = 0
  }
  private let worker = WorkerThread(name: "reorder-redis-tail", state: Follows())
  /// The thread's own: when the metas were last checked, the rooms whose log must be read, and
  /// the reconnect backoff.
  private var lastCheck = 0.0
  private var toRead: Set<String> = []
  private var backoff = RedisBackoff()
  /// Each room's replicated watermark as last learnt (`gated` only).
  private var watermarks: [String: UInt64] = [:]

  init(
    link: RedisLink, subscriber: ShardedSubscriber, gated: Bool = false, health: ClusterHealth,
    deliver: @escaping @Sendable (String, [AppendedEntry]) -> Void,
    changed: @escaping @Sendable (String, String?) -> Void
  ) {
    self.link = link
    self.subscriber = subscriber
    self.gated = gated
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
          subscriber.close()
          link.close()
          return
        }
        pass(asked)
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

  /// Ends the thread after the pass in flight.
  func stop() {
    worker.stop()
  }

  /// One pass over the `asked` rooms: notices, reads, the metas' check, deliveries; thread only.
  private func pass(_ asked: [String: Follow]) {
    do {
      let channels = Dictionary(uniqueKeysWithValues: asked.keys.map { (ClusterKeys(room: $0).appends, $0) })
      subscriber.unsubscribe(subscriber.channels.filter { channels[$0] == nil })
      subscriber.subscribe(channels.keys)
      toRead.formIntersection(asked.keys)
      watermarks = watermarks.filter { asked[$0.key] != nil }
      let events = try subscriber.receive(waitSeconds: toRead.isEmpty ? Self.waitSeconds : 0)
      var noticed: [String: [ClusterLogEntry]] = [:]
      var rewritten = false
      for event in events {
        switch event {
        case .subscribed(let channel):
          if let room = channels[channel] { toRead.insert(room) }
        case .message(let channel, let payload):
          guard let room = channels[channel] else { continue }
          if ClusterNotice.isChanged(payload) {
            rewritten = true
          } else if gated {
            if let mark = ClusterNotice.watermark(payload), mark > watermarks[room] ?? 0 {
              watermarks[room] = mark
              if mark > asked[room]!.seq { toRead.insert(room) }
            }
          } else if let entries = ClusterNotice.entries(payload) {
            noticed[room, default: []].append(contentsOf: entries)
          }
        }
      }
      let reading = toRead
      var read: [String: [ClusterLogEntry]] = [:]
      var failure: RedisError?
      if !reading.isEmpty {
        let positions = Dictionary(uniqueKeysWithValues: reading.map { ($0, asked[$0]!.seq) })
        let results = try link.run { (redis) throws(RedisError) in
          try redis.settledEntries(after: positions, limit: Self.readLimit)
        }
        for (room, result) in results {
          switch result {
          case .success(let entries):
            read[room] = entries
            toRead.remove(room)
          case .failure(let error):
            // Read again next pass; the other rooms go on.
            failure = failure ?? error
          }
        }
      }
      let foreign = (noticed.merging(read) { $0 + $1 }).contains { room, entries in
        entries.contains { $0.epoch != nil && asked[room]?.epoch != nil && $0.epoch != asked[room]?.epoch }
      }
      var metas: [String: ClusterRoomMeta]?
      let now = MonotonicClock.now()
      if foreign || rewritten || now - lastCheck >= Self.checkSeconds || (gated && !reading.isEmpty) {
        let rooms = Array(asked.keys)
        let results = try link.run { (redis) throws(RedisError) in try redis.settledMetas(rooms: rooms) }
        var found: [String: ClusterRoomMeta] = [:]
        for (room, result) in results {
          switch result {
          case .success(let meta): found[room] = meta
          case .failure(let error): failure = failure ?? error
          }
        }
        metas = found
        lastCheck = now
      }
      // A Redis Cluster master that cannot be reached holds up its rooms only; the probe names it.
      if let failure { health.failed(.tail, failure) } else { health.succeeded(.tail) }
      backoff.succeeded()
      for (room, follow) in asked {
        take(room, follow: follow, read: read[room] ?? [], noticed: noticed[room] ?? [], meta: metas?[room])
      }
    } catch {
      health.failed(.tail, error)
      // Everything is read again once Redis answers: notices may have been lost meanwhile.
      toRead.formUnion(asked.keys)
      // The link throws at once while its backoff waits: pause rather than spin.
      worker.pause(seconds: max(Self.waitSeconds, backoff.failed()))
    }
  }

  /// What the pass brought for one room, decided under the lock.
  private enum Outcome {
    /// Followed again, or no more, meanwhile: nothing to do.
    case stale
    /// The log's epoch is not the replica's: the room is paused.
    case changed(String?)
    /// Deliver these entries.
    case deliver([ClusterLogEntry])
  }

  /// Delivers what the pass brought for `room` and is of its epoch: the entries read (all of
  /// them, as the log has them: a gap there is one the room asks about), then the notices that
  /// follow without a gap. Marks the room for a read when a notice skips seqs or the meta shows
  /// more; pauses it when its epoch changed.
  private func take(
    _ room: String, follow: Follow, read: [ClusterLogEntry], noticed: [ClusterLogEntry], meta: ClusterRoomMeta?
  ) {
    if gated, let meta { watermarks[room] = meta.watermark }
    let limit = gated ? watermarks[room] ?? 0 : UInt64.max
    var gap = false
    let outcome = worker.withLock { follows -> Outcome in
      guard var current = follows.positions[room], current.generation == follow.generation else { return .stale }
      if let meta {
        if current.epoch == nil, let logEpoch = meta.epoch {
          current.epoch = logEpoch
        } else if current.epoch != nil, meta.epoch != current.epoch {
          follows.positions[room]!.paused = true
          return .changed(meta.epoch)
        }
      }
      var taken: [ClusterLogEntry] = []
      func ofEpoch(_ entry: ClusterLogEntry) -> Bool {
        guard let epoch = entry.epoch else { return true }
        if current.epoch == nil { current.epoch = epoch }
        return epoch == current.epoch
      }
      for entry in read where entry.seq > current.seq {
        guard entry.seq <= limit, ofEpoch(entry) else { break }
        taken.append(entry)
        current.seq = entry.seq
      }
      for entry in noticed where entry.seq > current.seq {
        guard ofEpoch(entry) else { break }
        guard entry.seq == current.seq + 1 else {
          gap = true
          break
        }
        taken.append(entry)
        current.seq = entry.seq
      }
      if let meta, min(meta.seq, limit) > current.seq, meta.epoch == current.epoch { gap = true }
      follows.positions[room] = current
      return .deliver(taken)
    }
    if gap { toRead.insert(room) }
    switch outcome {
    case .stale: return
    case .changed(let logEpoch): changed(room, logEpoch)
    case .deliver(let taken): if !taken.isEmpty { deliver(room, taken.map { AppendedEntry($0) }) }
    }
  }
}
