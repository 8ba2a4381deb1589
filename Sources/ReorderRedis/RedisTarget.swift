import Foundation

/// Where a node's Redis is: one server (`--redis`) or a Redis Cluster, by its seed nodes
/// (`--redis-cluster`).
public enum RedisTarget: Sendable, Equatable, CustomStringConvertible {
  /// One Redis server.
  case single(RedisURL)
  /// A Redis Cluster: the nodes its slot map is first asked of (their user and password are
  /// every node's).
  case cluster(seeds: [RedisURL])

  /// The servers named.
  public var urls: [RedisURL] {
    switch self {
    case .single(let url): [url]
    case .cluster(let seeds): seeds
    }
  }

  /// `redis://HOST:PORT/DB`, or the seeds with commas between them; never a password.
  public var description: String { urls.map(\.description).joined(separator: ",") }

  /// What the flags say: `redis` (`--redis`, one server) or `cluster` (`--redis-cluster`, seeds
  /// separated by commas), the password read from `passwordFile` and sent with `user` (nil: Redis'
  /// default user); nil when neither is given.
  /// - Throws: `RedisError.flags` for flags that do not go together, `RedisError.invalidURL` for a
  ///   bad URL (or a cluster seed with a database), `RedisError.passwordFile` for an unusable file.
  public init?(redis: String?, cluster: String?, user: String?, passwordFile: String?) throws(RedisError) {
    if redis != nil && cluster != nil {
      throw .flags("--redis and --redis-cluster exclude each other: give one Redis or one Redis Cluster")
    }
    if user != nil && passwordFile == nil {
      throw .flags("--redis-user needs --redis-password-file (AUTH user password)")
    }
    func url(_ text: String) throws(RedisError) -> RedisURL {
      var url = try RedisURL(parsing: text, passwordFile: passwordFile)
      url.user = user
      return url
    }
    if let redis {
      self = .single(try url(redis))
      return
    }
    guard let cluster else {
      if passwordFile != nil { throw .flags("--redis-password-file needs --redis or --redis-cluster") }
      return nil
    }
    var seeds: [RedisURL] = []
    for text in cluster.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
      let seed = try url(text)
      guard seed.database == 0 else {
        throw .invalidURL(text, reason: "a Redis Cluster has database 0 only (--redis-cluster takes no /DB)")
      }
      seeds.append(seed)
    }
    guard !seeds.isEmpty else {
      throw .invalidURL(cluster, reason: "--redis-cluster needs at least one redis://HOST:PORT")
    }
    self = .cluster(seeds: seeds)
  }

  /// A connection (one Redis) or a cluster client (a Redis Cluster) for a tool: nothing is
  /// connected until its first command.
  public func commands(timeouts: RedisTimeouts) throws(RedisError) -> any RedisCommands {
    switch self {
    case .single(let url): try RedisConnection(url: url, timeouts: timeouts)
    case .cluster(let seeds): RedisClusterClient(seeds: seeds, timeouts: timeouts)
    }
  }
}
