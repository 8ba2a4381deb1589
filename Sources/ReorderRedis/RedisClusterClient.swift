import Foundation
import ReorderBasics

/// Commands to a Redis Cluster: each goes to the master of its key's slot, over one connection
/// per master, following the cluster's redirections (docs/CLUSTER.md, "Redis Cluster").
///
/// - The slot map comes from `CLUSTER SLOTS`, asked of a known master or else of a seed; it is
///   read at the first command and again after a `MOVED` or a connection failure.
/// - `MOVED`: the map is read again and the command re-sent to the slot's new master.
/// - `ASK`: the command is sent once to the node named, after `ASKING`; the map is unchanged.
/// - `TRYAGAIN` (a multi-key command during a slot's migration) and `CLUSTERDOWN`: re-sent after
///   a short wait.
/// - A connection that fails is dropped, the map read again, and the command re-sent once.
///
/// At most `maxRedirects` redirections or retries per command, then the last error is thrown.
/// Not thread-safe: one client per thread, as `RedisConnection`.
public final class RedisClusterClient: RedisCommands, @unchecked Sendable {
  /// Where the map is first asked for.
  public let seeds: [RedisURL]
  /// The slot map as last read (nil before the first read).
  public private(set) var map: RedisSlotMap?
  /// Redirections followed so far (`MOVED`, `ASK`), and map reads.
  public private(set) var counts = Counts()
  /// Most redirections and retries of one command.
  public static let maxRedirects = 5

  /// What the client did so far.
  public struct Counts: Sendable, Equatable {
    /// `MOVED` replies followed.
    public var moved = 0
    /// `ASK` replies followed.
    public var asked = 0
    /// `CLUSTER SLOTS` reads.
    public var mapReads = 0
  }

  private let timeouts: RedisTimeouts
  private let metrics: RedisMetrics?
  private let prepare: (RedisConnection) throws(RedisError) -> Void
  private var connections: [RedisClusterNode: RedisConnection] = [:]
  private var failing: [RedisClusterNode: Failing] = [:]
  private let now: () -> Double = { MonotonicClock.now() }

  /// A client for the cluster that `seeds` belong to (their password, if any, is every node's).
  /// Nothing connects before the first command. `prepare` runs on each new connection (loading
  /// the function library, say).
  public init(
    seeds: [RedisURL], timeouts: RedisTimeouts = RedisTimeouts(), metrics: RedisMetrics? = nil,
    prepare: @escaping (RedisConnection) throws(RedisError) -> Void = { _ throws(RedisError) in }
  ) {
    self.seeds = seeds
    self.timeouts = timeouts
    self.metrics = metrics
    self.prepare = prepare
  }

  deinit { close() }

  /// Closes every connection.
  public func close() {
    for connection in connections.values { connection.close() }
    connections = [:]
  }

  /// Reads the slot map again, from the masters known, else from the seeds.
  /// - Throws: the last node's error when no node answered.
  public func refreshMap() throws(RedisError) {
    counts.mapReads += 1
    let known = (map?.masters ?? []) + seeds.map { RedisClusterNode(host: $0.host, port: $0.port) }
    var lastError = RedisError.cannotConnect(endpoint: seeds.first?.description ?? "-", reason: "no seed node")
    for node in known {
      do {
        let reply = try connection(to: node).command("CLUSTER", "SLOTS")
        map = try RedisSlotMap(clusterSlots: reply, source: node)
        return
      } catch {
        if error.isConnectionFailure { drop(node) }
        lastError = error
      }
    }
    throw lastError
  }

  /// Sends each command to the master of its key's slot (a command without a key: to the first
  /// master), one round trip per master, and returns their replies in order (error replies in
  /// their place). A command redirected or told to try again is re-sent after that round trip,
  /// with the others of its round in their order; so only while a slot moves can a command run
  /// after a later one on its slot. A master that cannot be reached fails the call, after
  /// `maxRedirects` attempts (its commands may or may not have run).
  public func pipeline(_ commands: [RedisCommand]) throws(RedisError) -> [RedisReply] {
    try settledPipeline(commands).values()
  }

  /// `pipeline`, where a master that cannot be reached fails only its own commands (after
  /// `maxRedirects` attempts; they may or may not have run): the others' replies are kept.
  /// - Throws: when the slot map cannot be read at all.
  public func settledPipeline(_ commands: [RedisCommand]) throws(RedisError) -> [Result<RedisReply, RedisError>] {
    guard !commands.isEmpty else { return [] }
    if map == nil { try refreshMap() }
    var replies = [RedisReply?](repeating: nil, count: commands.count)
    var failures: [Int: RedisError] = [:]
    let slots = commands.map { $0.key.map { RedisKeySlot.slot(of: Array($0.utf8)) } }
    var waiting: [(index: Int, asking: RedisClusterNode?)] = commands.indices.map { ($0, nil) }
    var attempts = 0
    while !waiting.isEmpty {
      attempts += 1
      var order: [RedisClusterNode] = []
      var groups: [RedisClusterNode: [(index: Int, asking: Bool)]] = [:]
      if waiting.contains(where: { $0.asking == nil && target(slot: slots[$0.index]) == nil }) {
        // A slot the map gives no master: the map may be older than the cluster (a master that
        // was away and took its slots back). Read at most every `holeReadSeconds`.
        readMapForHoles()
      }
      for (index, asking) in waiting {
        guard let node = asking ?? target(slot: slots[index]) else {
          replies[index] = .error("CLUSTERDOWN no master serves slot \(slots[index] ?? 0)")
          continue
        }
        if groups[node] == nil { order.append(node) }
        groups[node, default: []].append((index, asking != nil))
      }
      var again: [(index: Int, asking: RedisClusterNode?)] = []
      var refresh = false
      var pause = false
      for node in order {
        let members = groups[node]!
        let answers: [RedisReply]
        do {
          let sent = members.flatMap { member -> [[any RedisArgument]] in
            member.asking ? [["ASKING"], commands[member.index].arguments] : [commands[member.index].arguments]
          }
          let all = try connection(to: node).pipeline(sent)
          var cursor = 0
          answers = members.map { member in
            cursor += member.asking ? 2 : 1
            return all[cursor - 1]
          }
        } catch {
          guard error.isConnectionFailure else { throw error }
          drop(node)
          refresh = true
          if attempts < Self.maxRedirects {
            again += members.map { ($0.index, nil) }
          } else {
            for member in members { failures[member.index] = error }
          }
          continue
        }
        for (member, reply) in zip(members, answers) {
          replies[member.index] = reply
          guard case .error(let message) = reply else { continue }
          if let redirect = RedisRedirect(error: message, from: node) {
            switch redirect.kind {
            case .moved:
              counts.moved += 1
              map = map?.moving(slot: redirect.slot, to: redirect.target)
              refresh = true
              again.append((member.index, nil))
            case .ask:
              counts.asked += 1
              again.append((member.index, redirect.target))
            }
          } else if message.hasPrefix("TRYAGAIN") || message.hasPrefix("CLUSTERDOWN") {
            pause = true
            again.append((member.index, nil))
          }
        }
      }
      guard !again.isEmpty, attempts < Self.maxRedirects else { break }
      if refresh { try? refreshMap() }
      if pause { usleep(20_000) }
      waiting = again.sorted { $0.index < $1.index }
    }
    return replies.indices.map { index in
      if let failure = failures[index] { return .failure(failure) }
      return .success(replies[index] ?? .null)
    }
  }

  /// Runs `body` on every master's connection (loading functions, say), in map order.
  public func forEachNode(_ body: (RedisConnection) throws(RedisError) -> Void) throws(RedisError) {
    if map == nil { try refreshMap() }
    for node in map?.masters ?? [] { try body(try connection(to: node)) }
  }

  /// The map read again (every probe reads it: a master that came back with its slots is known
  /// again), then `PING` to every master of the map: each one's answer, and one failure for slots
  /// no master serves. A master that fails is dropped.
  public func probe() -> [RedisProbe] {
    do {
      try refreshMap()
    } catch {
      if map == nil {
        return seeds.map { RedisProbe(node: RedisClusterNode(host: $0.host, port: $0.port).endpoint, failure: error) }
      }
    }
    var results: [RedisProbe] = []
    if let map, !map.coversAllSlots {
      results.append(
        RedisProbe(
          node: "slots without a master",
          failure: .unexpectedReply(command: "CLUSTER SLOTS", reply: "some slots have no master")))
    }
    for node in map?.masters ?? [] {
      do {
        try connection(to: node).command("PING")
        results.append(RedisProbe(node: node.endpoint, failure: nil))
      } catch {
        if error.isConnectionFailure { drop(node) }
        results.append(RedisProbe(node: node.endpoint, failure: error))
      }
    }
    return results
  }

  /// `WAIT` on the open connection of each master that serves one of `keys` (one per master).
  public func waitReplicas(_ count: Int, milliseconds: Int, keys: [String]) -> [String: Result<Int, RedisError>] {
    var byNode: [RedisClusterNode: [String]] = [:]
    var results: [String: Result<Int, RedisError>] = [:]
    for key in keys {
      guard let node = map?.master(ofKey: Array(key.utf8)) else {
        results[key] = .failure(.unexpectedReply(command: "WAIT", reply: "no master serves the key's slot"))
        continue
      }
      byNode[node, default: []].append(key)
    }
    for (node, nodeKeys) in byNode {
      guard let connection = connections[node], !connection.isBroken else {
        let lost = RedisError.connectionLost(command: "WAIT", reason: "the connection to \(node) that wrote is gone")
        for key in nodeKeys { results[key] = .failure(lost) }
        continue
      }
      for (key, result) in connection.waitReplicas(count, milliseconds: milliseconds, keys: nodeKeys) {
        results[key] = result
      }
    }
    return results
  }

  /// How often at most a command on a slot without a master reads the map again.
  static let holeReadSeconds = 0.5
  private var lastHoleRead = -Double.infinity

  /// Reads the map again unless that was done in the last `holeReadSeconds`.
  private func readMapForHoles() {
    let now = self.now()
    guard now - lastHoleRead >= Self.holeReadSeconds else { return }
    lastHoleRead = now
    try? refreshMap()
  }

  /// The master of `slot` (nil: any master), if the map knows one.
  private func target(slot: Int?) -> RedisClusterNode? {
    guard let slot else { return map?.masters.first }
    return map?.master(ofSlot: slot)
  }

  /// The connection to `node`, made (and prepared) if there is none or it broke. After a failed
  /// attempt, the node's next one waits its backoff (`RedisBackoff`); until then this throws
  /// `RedisError.unavailable` at once, so a dead master costs no connect timeout per command.
  private func connection(to node: RedisClusterNode) throws(RedisError) -> RedisConnection {
    if let open = connections[node], !open.isBroken { return open }
    let time = now()
    if let failing = failing[node], time < failing.nextAttempt {
      throw .unavailable(retryInSeconds: failing.nextAttempt - time, lastError: failing.error.description)
    }
    let url = RedisURL(host: node.host, port: node.port, user: seeds.first?.user, password: seeds.first?.password)
    do {
      let made = try RedisConnection(url: url, timeouts: timeouts, metrics: metrics)
      try prepare(made)
      connections[node] = made
      failing[node] = nil
      return made
    } catch {
      var backoff = failing[node]?.backoff ?? RedisBackoff()
      failing[node] = Failing(backoff: backoff, nextAttempt: time + backoff.failed(), error: error)
      failing[node]?.backoff = backoff
      throw error
    }
  }

  /// A node whose last connection attempt failed.
  private struct Failing {
    var backoff: RedisBackoff
    var nextAttempt: Double
    var error: RedisError
  }

  private func drop(_ node: RedisClusterNode) {
    connections.removeValue(forKey: node)?.close()
  }
}
