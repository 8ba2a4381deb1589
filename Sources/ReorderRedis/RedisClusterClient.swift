import Foundation

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
public final class RedisClusterClient: @unchecked Sendable {
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

  /// Sends `arguments` to the master of `key`'s slot and returns the reply, following
  /// redirections. An error reply that is not a redirection throws `RedisError.server`.
  @discardableResult
  public func command(key: [UInt8], _ arguments: [any RedisArgument]) throws(RedisError) -> RedisReply {
    let replies = try pipeline(key: key, [arguments])
    if case .error(let message) = replies[0] {
      throw .server(command: String(decoding: arguments[0].redisBytes, as: UTF8.self), message: message)
    }
    return replies[0]
  }

  /// Sends `commands`, every one of them on keys of `key`'s slot, to that slot's master in one
  /// round trip, and returns their replies in order (error replies in their place). A command
  /// redirected or told to try again is re-sent after that round trip, as are the ones redirected
  /// with it, in their order; so only while the slot moves can a command run after a later one of
  /// the same call.
  public func pipeline(key: [UInt8], _ commands: [[any RedisArgument]]) throws(RedisError) -> [RedisReply] {
    guard !commands.isEmpty else { return [] }
    if map == nil { try refreshMap() }
    let slot = RedisKeySlot.slot(of: key)
    var replies = [RedisReply?](repeating: nil, count: commands.count)
    var waiting = Array(commands.indices)
    var asking: RedisClusterNode?
    var attempts = 0
    while !waiting.isEmpty {
      guard let node = asking ?? map?.master(ofSlot: slot) else {
        try refreshMap()
        attempts += 1
        guard attempts <= Self.maxRedirects, map?.master(ofSlot: slot) != nil else {
          throw .unexpectedReply(command: "CLUSTER SLOTS", reply: "no master serves slot \(slot)")
        }
        continue
      }
      let sent = waiting.map { commands[$0] }
      let answers: [RedisReply]
      do {
        let connection = try connection(to: node)
        answers = try connection.pipeline(asking == nil ? sent : sent.flatMap { [["ASKING"], $0] })
      } catch {
        guard error.isConnectionFailure, attempts < Self.maxRedirects else { throw error }
        drop(node)
        attempts += 1
        asking = nil
        try? refreshMap()
        continue
      }
      let results = asking == nil ? answers : stride(from: 1, to: answers.count, by: 2).map { answers[$0] }
      asking = nil
      var again: [Int] = []
      var redirect: RedisRedirect?
      var pause = false
      // Each command's reply so far; a redirected one keeps its error if it is not re-sent.
      for (index, reply) in zip(waiting, results) {
        replies[index] = reply
        guard case .error(let message) = reply else { continue }
        if let found = RedisRedirect(error: message, from: node) {
          redirect = redirect ?? found
          again.append(index)
        } else if message.hasPrefix("TRYAGAIN") || message.hasPrefix("CLUSTERDOWN") {
          pause = true
          again.append(index)
        }
      }
      waiting = again
      attempts += 1
      guard !waiting.isEmpty, attempts <= Self.maxRedirects else { break }
      if let redirect {
        switch redirect.kind {
        case .moved:
          counts.moved += 1
          map = map?.moving(slot: redirect.slot, to: redirect.target)
          try? refreshMap()
        case .ask:
          counts.asked += 1
          asking = redirect.target
        }
      } else if pause {
        usleep(20_000)
      }
    }
    return replies.map { $0 ?? .null }
  }

  /// Runs `body` on every master's connection (loading functions, say), in map order.
  public func forEachMaster(_ body: (RedisClusterNode, RedisConnection) throws(RedisError) -> Void)
    throws(RedisError)
  {
    if map == nil { try refreshMap() }
    for node in map?.masters ?? [] { try body(node, try connection(to: node)) }
  }

  /// The connection to `node`, made (and prepared) if there is none or it broke.
  private func connection(to node: RedisClusterNode) throws(RedisError) -> RedisConnection {
    if let open = connections[node], !open.isBroken { return open }
    let url = RedisURL(host: node.host, port: node.port, password: seeds.first?.password)
    let made = try RedisConnection(url: url, timeouts: timeouts, metrics: metrics)
    try prepare(made)
    connections[node] = made
    return made
  }

  private func drop(_ node: RedisClusterNode) {
    connections.removeValue(forKey: node)?.close()
  }
}
