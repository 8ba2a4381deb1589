import Foundation

/// A throwaway Redis Cluster for tests: `masters` `redis-server`s (each a `RedisServer`, with
/// `cluster-enabled yes`, `cluster-require-full-coverage no` as docs/CLUSTER.md says) joined by
/// `redis-cli --cluster create`, every slot assigned, with or without replicas. Stopped by their PIDs in `stop()` (and when released).
public final class RedisClusterServers: @unchecked Sendable {
  /// The masters, in the order their slots were assigned (the first holds slot 0).
  public let servers: [RedisServer]

  /// Where `redis-cli` is, or nil when it is not installed.
  public static var cli: String? {
    ["/usr/bin/redis-cli", "/usr/local/bin/redis-cli"].first { FileManager.default.isExecutableFile(atPath: $0) }
  }

  /// Starts `masters` nodes (and `replicas` per master), creates the cluster and waits until
  /// every node says `cluster_state:ok`. `redis-cli` makes the first `masters` servers the
  /// masters and the others their replicas.
  public init(masters: Int = 3, replicas: Int = 0) throws {
    guard let cli = Self.cli else {
      throw RawSocketError.failed("redis-cli is not installed: run scripts/install-deps.sh test")
    }
    var servers: [RedisServer] = []
    for _ in 0..<masters * (1 + replicas) {
      servers.append(
        try RedisServer(
          extraArguments: [
            "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000",
            "--cluster-require-full-coverage", "no",
          ], choosePort: Self.clusterPort))
    }
    self.servers = servers
    let create = try ChildProcess(
      executable: cli,
      arguments: ["--cluster", "create"] + servers.map { "127.0.0.1:\($0.port)" } + [
        "--cluster-replicas", String(replicas), "--cluster-yes",
      ])
    guard create.waitForExit(timeout: 30) == 0 else {
      let output = create.output.suffix(5).joined(separator: "\n")
      stop()
      throw RawSocketError.failed("redis-cli --cluster create failed: \(output)")
    }
    let ready = waitUntil(timeout: 30, pollMilliseconds: 100) {
      servers.allSatisfy { server in
        (try? Self.run(cli, ["-p", String(server.port), "CLUSTER", "INFO"]))?.contains("cluster_state:ok") ?? false
      }
    }
    guard ready else {
      stop()
      throw RawSocketError.failed("the Redis Cluster did not reach cluster_state:ok")
    }
    let replicated = waitUntil(timeout: 30, pollMilliseconds: 100) {
      servers.prefix(masters).allSatisfy { server in
        let info = (try? Self.run(cli, ["-p", String(server.port), "INFO", "replication"])) ?? ""
        return info.contains("connected_slaves:\(replicas)") && (replicas == 0 || info.contains("state=online"))
      }
    }
    guard replicated else {
      stop()
      throw RawSocketError.failed("the Redis Cluster's replicas did not all come online")
    }
  }

  /// A free port whose cluster bus port (10,000 higher) is one too, as Redis requires.
  static func clusterPort() -> Int {
    for _ in 0..<100 {
      let port = freePort()
      if port <= 55_535 { return port }
    }
    return 20_000 + Int.random(in: 0..<30_000)
  }

  /// `redis-cli -p <port of server> arguments…`'s output (the test's way to look at a node).
  public func cli(_ server: RedisServer, _ arguments: [String]) throws -> String {
    guard let cli = Self.cli else { throw RawSocketError.failed("redis-cli is not installed") }
    return try Self.run(cli, ["-p", String(server.port)] + arguments)
  }

  private static func run(_ executable: String, _ arguments: [String]) throws -> String {
    let child = try ChildProcess(executable: executable, arguments: arguments)
    guard child.waitForExit(timeout: 10) != nil else {
      child.terminate()
      throw RawSocketError.failed("\(executable) did not exit")
    }
    return child.output.joined(separator: "\n")
  }

  /// Stops every node (SIGKILL by PID) and removes their directories.
  public func stop() {
    for server in servers { server.stop() }
  }

  deinit { stop() }
}
