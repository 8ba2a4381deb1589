/// One command and the key that says which node serves it (nil: any node will do).
public struct RedisCommand {
  /// The key whose slot decides the node, or nil for a command on no key.
  public var key: String?
  /// The command's words, its name first.
  public var arguments: [any RedisArgument]

  /// `arguments`, sent to the node serving `key`.
  public init(key: String?, _ arguments: [any RedisArgument]) {
    self.key = key
    self.arguments = arguments
  }
}

/// Where a node's commands go: one Redis (`RedisConnection`) or a Redis Cluster
/// (`RedisClusterClient`, each command to the master of its key's slot). The room commands of
/// this module (appends, reads, rosters, summaries…) are written once, on this protocol, and every
/// command of one of them names keys of one room only, so it runs unchanged on both.
public protocol RedisCommands: AnyObject {
  /// Sends `commands`, each to the node that serves its key, in one round trip per node, and
  /// returns their replies in order (error replies in their place). Commands of one slot run in
  /// their order.
  func pipeline(_ commands: [RedisCommand]) throws(RedisError) -> [RedisReply]

  /// `pipeline`, where a node that cannot be reached fails only the commands it serves: each
  /// command's reply, or the failure of its node (its command may or may not have run). One Redis
  /// fails them all at once.
  func settledPipeline(_ commands: [RedisCommand]) throws(RedisError) -> [Result<RedisReply, RedisError>]

  /// Runs `body` on the connection of every node that holds data (the one Redis, or every
  /// master), in a fixed order.
  func forEachNode(_ body: (RedisConnection) throws(RedisError) -> Void) throws(RedisError)

  /// `PING` to every node that holds data: each one's `HOST:PORT` and, when it did not answer,
  /// why. Never throws: a node that cannot be reached is a result.
  func probe() -> [RedisProbe]

  /// `WAIT count milliseconds` on the open connection of each node that serves one of `keys`
  /// (never a new connection: a `WAIT` there would cover none of this client's writes): per key,
  /// how many replicas acknowledged every write this client made on that node, or why the node
  /// could not be asked.
  func waitReplicas(_ count: Int, milliseconds: Int, keys: [String]) -> [String: Result<Int, RedisError>]

  /// Closes every connection.
  func close()
}

/// Whether one Redis node answered a `PING`.
public struct RedisProbe: Sendable, Equatable {
  /// The node, `HOST:PORT`.
  public var node: String
  /// Why it did not answer, or nil when it did.
  public var failure: RedisError?

  /// A probe's result.
  public init(node: String, failure: RedisError?) {
    self.node = node
    self.failure = failure
  }
}

extension RedisCommands {
  /// Sends one command to the node serving `key` and waits for its reply. An error reply throws
  /// `RedisError.server`.
  @discardableResult
  public func command(key: String?, _ arguments: [any RedisArgument]) throws(RedisError) -> RedisReply {
    let reply = try pipeline([RedisCommand(key: key, arguments)])[0]
    if case .error(let message) = reply {
      throw .server(command: RedisConnection.name(arguments.prefix(2).map(\.redisBytes)), message: message)
    }
    return reply
  }

  /// Sends one command to the node serving `key` (see `command(key:_:)` with an array).
  @discardableResult
  public func command(key: String?, _ arguments: any RedisArgument...) throws(RedisError) -> RedisReply {
    try command(key: key, arguments)
  }

  /// `commands` in one settled pipeline, each reply read by `read`; an error reply is that
  /// command's `RedisError.server`.
  func settled<T>(_ commands: [RedisCommand], name: String, read: (RedisReply) -> T) throws(RedisError)
    -> [Result<T, RedisError>]
  {
    guard !commands.isEmpty else { return [] }
    return try settledPipeline(commands).map { result in
      result.flatMap { reply in
        if case .error(let message) = reply { return .failure(.server(command: name, message: message)) }
        return .success(read(reply))
      }
    }
  }

  /// Sends `commands`, all on keys of `key`'s slot, to its node in one round trip.
  public func pipeline(key: String, _ commands: [[any RedisArgument]]) throws(RedisError) -> [RedisReply] {
    try pipeline(commands.map { RedisCommand(key: key, $0) })
  }
}

extension Sequence {
  /// Every value, or the first failure: a settled pipeline's results as a plain one's.
  func values<T>() throws(RedisError) -> [T] where Element == Result<T, RedisError> {
    var values: [T] = []
    for result in self {
      switch result {
      case .success(let value): values.append(value)
      case .failure(let error): throw error
      }
    }
    return values
  }
}

extension RedisConnection: RedisCommands {
  /// Sends every command on this connection in one round trip (keys do not matter: one Redis
  /// serves them all).
  public func pipeline(_ commands: [RedisCommand]) throws(RedisError) -> [RedisReply] {
    try pipeline(commands.map(\.arguments))
  }

  /// The pipeline's replies, or its failure for every command.
  public func settledPipeline(_ commands: [RedisCommand]) throws(RedisError) -> [Result<RedisReply, RedisError>] {
    do {
      return try pipeline(commands).map { .success($0) }
    } catch {
      guard error.isConnectionFailure else { throw error }
      return commands.map { _ in .failure(error) }
    }
  }

  /// One `WAIT` on this connection, its answer for every key.
  public func waitReplicas(_ count: Int, milliseconds: Int, keys: [String]) -> [String: Result<Int, RedisError>] {
    let result: Result<Int, RedisError>
    do {
      let reply = try command("WAIT", count, milliseconds)
      if let acknowledged = reply.integer {
        result = .success(Int(acknowledged))
      } else {
        result = .failure(.unexpectedReply(command: "WAIT", reply: reply.description))
      }
    } catch {
      result = .failure(error)
    }
    return Dictionary(keys.map { ($0, result) }, uniquingKeysWith: { first, _ in first })
  }

  /// Runs `body` on this connection.
  public func forEachNode(_ body: (RedisConnection) throws(RedisError) -> Void) throws(RedisError) {
    try body(self)
  }

  /// `PING` on this connection.
  public func probe() -> [RedisProbe] {
    let node = RedisClusterNode(host: url.host, port: url.port).endpoint
    do {
      try command("PING")
      return [RedisProbe(node: node, failure: nil)]
    } catch {
      return [RedisProbe(node: node, failure: error)]
    }
  }
}
