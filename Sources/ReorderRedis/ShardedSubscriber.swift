import Foundation
import ReorderBasics

/// What a `ShardedSubscriber` receives.
public enum ShardEvent: Sendable, Equatable {
  /// Redis confirmed the subscription to `channel`: messages published on it from now on arrive
  /// (what was published before, or while it was not subscribed, did not).
  case subscribed(channel: String)
  /// A message published on `channel`.
  case message(channel: String, payload: [UInt8])
}

/// Shard channels (`SSUBSCRIBE`, Redis 7.0) of one Redis or of a Redis Cluster, each subscribed on
/// the master that serves its slot, over one connection per master, for a thread of its own.
///
/// - Subscribing writes the command and does not wait: confirmations come back through
///   `receive`, the only call that waits (at most its `waitSeconds`), so the caller can change
///   its channels between two receives.
/// - A channel whose slot moved (Redis ends the subscription itself with `sunsubscribe`, or
///   refuses it with `MOVED`) or whose master's connection failed is subscribed again, after the
///   map is read again, at the next `receive`. Messages published meanwhile are lost, as pub/sub
///   loses them: the `subscribed` event that follows says from when messages arrive again.
/// - A master whose connection fails, or that cannot be reached, holds up only its own channels:
///   they are subscribed again by a later `receive`, at once after a lost connection and then with
///   a backoff per master (50 ms … 5 s, `RedisBackoff`), while the other masters' messages keep
///   coming. `receive` throws only when no master is connected at all (one Redis down, or every
///   master): the caller backs off.
public final class ShardedSubscriber: @unchecked Sendable {
  /// Where it subscribes.
  public let target: RedisTarget
  /// The channels asked for, whether or not Redis confirmed them yet.
  public private(set) var channels: Set<String> = []
  private let timeouts: RedisTimeouts
  private let metrics: RedisMetrics?
  /// Reads the slot map of a Redis Cluster (nil for one Redis).
  private let maps: RedisClusterClient?
  private var map: RedisSlotMap? { maps?.map }
  private var mapIsStale = true
  private var connections: [RedisClusterNode: RedisConnection] = [:]
  /// The node each subscribed channel was asked of.
  private var placed: [String: RedisClusterNode] = [:]
  /// Channels unsubscribed whose confirmation has not come yet.
  private var leaving: Set<String> = []
  /// Masters whose connection failed: when to try again, and why.
  private var failing: [RedisClusterNode: (backoff: RedisBackoff, nextAttempt: Double, error: RedisError)] = [:]

  /// How often at most the map is read again while a channel's slot has no master in it.
  static let holeReadSeconds = 0.5
  private var holes = false
  private var lastMapRead = -Double.infinity

  /// The masters whose connection failed and is not made again yet (`HOST:PORT`).
  public var unreachable: [String] { failing.keys.map(\.endpoint).sorted() }

  /// A subscriber to `target`; nothing connects before the first `receive`.
  public init(target: RedisTarget, timeouts: RedisTimeouts = RedisTimeouts(), metrics: RedisMetrics? = nil) {
    self.target = target
    self.timeouts = timeouts
    self.metrics = metrics
    if case .cluster(let seeds) = target {
      maps = RedisClusterClient(seeds: seeds, timeouts: timeouts, metrics: metrics)
    } else {
      maps = nil
    }
  }

  deinit { close() }

  /// Closes every connection; the channels stay asked for and are subscribed again at the next
  /// `receive`.
  public func close() {
    for connection in connections.values { connection.close() }
    connections = [:]
    maps?.close()
    placed = [:]
    leaving = []
  }

  /// Asks for `channels` (those not asked for yet); they are subscribed at the next `receive`.
  public func subscribe(_ channels: some Sequence<String>) {
    self.channels.formUnion(channels)
  }

  /// Stops `channels`: no message of theirs is returned from now on.
  public func unsubscribe(_ channels: some Sequence<String>) {
    for channel in channels where self.channels.remove(channel) != nil {
      guard let node = placed.removeValue(forKey: channel) else { continue }
      if (try? connections[node]?.send(["SUNSUBSCRIBE", channel])) != nil { leaving.insert(channel) }
    }
  }

  /// Subscribes what waits to be, then waits up to `waitSeconds` for events and returns those
  /// received, at most about `limit` (so that a flood cannot hold the caller; the rest wait for
  /// the next call), empty when none came in time. Messages of channels not asked for are
  /// dropped.
  public func receive(waitSeconds: Double, limit: Int = 4096) throws(RedisError) -> [ShardEvent] {
    try place()
    var open = connections.filter { !$0.value.isBroken }
    var events: [ShardEvent] = []
    var wait = waitSeconds
    while events.count < limit {
      var any = false
      for (node, connection) in open {
        do {
          while events.count < limit, let reply = try connection.buffered() {
            any = true
            handle(reply, from: node, into: &events)
          }
        } catch {
          lost(node, error)
          open[node] = nil
        }
      }
      if any || events.count >= limit { break }
      guard !open.isEmpty else {
        if let error = failing.values.first?.error { throw error }
        // Nothing subscribed yet (no master serves a channel's slot): wait rather than spin.
        usleep(useconds_t(max(0, wait) * 1_000_000))
        break
      }
      let nodes = Array(open.keys)
      let ready = try RedisConnection.readable(nodes.map { open[$0]! }, waitSeconds: wait)
      guard ready.contains(true) else { break }
      for (index, isReady) in ready.enumerated() where isReady {
        do {
          try open[nodes[index]]!.readAvailable()
        } catch {
          lost(nodes[index], error)
          open[nodes[index]] = nil
        }
      }
      wait = 0
    }
    return events
  }

  /// One reply of `node`'s connection.
  private func handle(_ reply: RedisReply, from node: RedisClusterNode, into events: inout [ShardEvent]) {
    if case .error(let message) = reply {
      // A subscription refused: its slot is elsewhere (MOVED) or the cluster is down. The
      // channels it could be are placed again on a fresh map.
      let slot = RedisRedirect(error: message, from: node)?.slot
      for (channel, at) in placed
      where at == node && (slot == nil || RedisKeySlot.slot(of: Array(channel.utf8)) == slot) {
        placed[channel] = nil
      }
      mapIsStale = true
      return
    }
    guard let parts = reply.elements, parts.count == 3, let kind = parts[0].text, let channel = parts[1].text else {
      return
    }
    switch kind {
    case "smessage":
      guard channels.contains(channel), !leaving.contains(channel), let payload = parts[2].bytes else { return }
      events.append(.message(channel: channel, payload: payload))
    case "ssubscribe":
      if channels.contains(channel) && placed[channel] == node { events.append(.subscribed(channel: channel)) }
    case "sunsubscribe":
      if leaving.remove(channel) == nil, placed[channel] == node {
        // Redis ended it: the slot moved.
        placed[channel] = nil
        mapIsStale = true
      }
    default:
      break
    }
  }

  /// Subscribes every channel asked for and not placed, each on its slot's master (a master in
  /// its backoff is skipped; its channels wait).
  private func place() throws(RedisError) {
    let waiting = channels.filter { placed[$0] == nil }
    guard !waiting.isEmpty else { return }
    let now = MonotonicClock.now()
    if case .cluster = target, mapIsStale || map == nil || (holes && now - lastMapRead >= Self.holeReadSeconds) {
      lastMapRead = now
      try readMap()
    }
    holes = false
    for channel in waiting.sorted() {
      guard let node = node(of: channel) else {
        // No master serves its slot in this map: read it again (at most every holeReadSeconds).
        holes = true
        continue
      }
      if let failed = failing[node], now < failed.nextAttempt { continue }
      do {
        try connection(to: node).send(["SSUBSCRIBE", channel])
        placed[channel] = node
      } catch {
        lost(node, error)
      }
    }
  }

  /// The master serving `channel`'s slot.
  private func node(of channel: String) -> RedisClusterNode? {
    switch target {
    case .single(let url): RedisClusterNode(host: url.host, port: url.port)
    case .cluster: map?.master(ofKey: Array(channel.utf8))
    }
  }

  /// Reads the slot map again through `maps` (which asks the masters it knows, then the seeds).
  private func readMap() throws(RedisError) {
    try maps?.refreshMap()
    mapIsStale = false
  }

  private func connection(to node: RedisClusterNode) throws(RedisError) -> RedisConnection {
    if let open = connections[node], !open.isBroken { return open }
    let made = try RedisConnection(url: url(of: node), timeouts: timeouts, metrics: metrics)
    connections[node] = made
    failing[node] = nil
    return made
  }

  private func url(of node: RedisClusterNode) -> RedisURL {
    let first = target.urls.first
    return RedisURL(
      host: node.host, port: node.port, database: first?.database ?? 0, user: first?.user, password: first?.password)
  }

  /// `node`'s connection failed (or could not be made): its channels are placed again (on a
  /// fresh map) next time; a lost connection at once, a failed attempt after its backoff.
  private func lost(_ node: RedisClusterNode, _ error: RedisError) {
    let wasOpen =
      connections.removeValue(forKey: node).map { connection in
        connection.close()
        return true
      } ?? false
    for (channel, at) in placed where at == node { placed[channel] = nil }
    leaving.removeAll()
    mapIsStale = true
    let now = MonotonicClock.now()
    var backoff = failing[node]?.backoff ?? RedisBackoff()
    let next = wasOpen ? now : now + backoff.failed()
    failing[node] = (backoff, next, error)
  }
}
