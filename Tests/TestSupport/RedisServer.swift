import Foundation

/// A throwaway `redis-server` for tests: 127.0.0.1 on a free port, its own temporary directory,
/// `appendonly yes` + `appendfsync always` (every acknowledged write is on disk), no RDB saves,
/// `maxmemory-policy noeviction`. Stopped by its PID in `stop()` (and when released), so a test
/// that fails still stops it; the directory is removed by `stop()`.
public final class RedisServer: @unchecked Sendable {
  /// Its port on 127.0.0.1.
  public private(set) var port: Int
  /// Its data directory (the append-only files live under it).
  public let directory: TemporaryDirectory
  /// The password it requires, or nil.
  public let password: String?
  /// More arguments for `redis-server` (a cluster node's, say).
  public let extraArguments: [String]
  private var process: ChildProcess?

  /// Where `redis-server` is, or nil when it is not installed (`scripts/install-deps.sh test`).
  public static var executable: String? {
    ["/usr/bin/redis-server", "/usr/local/bin/redis-server"].first { FileManager.default.isExecutableFile(atPath: $0) }
  }

  /// Starts a server and waits until it accepts connections.
  /// `choosePort` picks the port (again, when a port was taken meanwhile).
  public init(password: String? = nil, extraArguments: [String] = [], choosePort: () -> Int = freePort) throws {
    port = choosePort()
    directory = try TemporaryDirectory(prefix: "reorder-redis")
    self.password = password
    self.extraArguments = extraArguments
    // Another process may take the free port before redis-server binds it: try a few ports.
    for attempt in 1...3 {
      do {
        try start()
        return
      } catch  where attempt < 3 {
        port = choosePort()
      }
    }
  }

  /// The server's process id while it runs.
  public var pid: Int32? { process?.pid }

  /// Starts the server again on the same port and directory (after `kill()`), and waits until
  /// it has loaded its data and accepts connections.
  public func start() throws {
    guard let executable = Self.executable else {
      throw RawSocketError.failed("redis-server is not installed: run scripts/install-deps.sh test")
    }
    var arguments = [
      "--port", String(port), "--bind", "127.0.0.1", "--dir", directory.path, "--daemonize", "no",
      "--appendonly", "yes", "--appendfsync", "always", "--save", "", "--maxmemory-policy", "noeviction",
      "--loglevel", "notice",
    ]
    if let password { arguments += ["--requirepass", password] }
    arguments += extraArguments
    let child = try ChildProcess(executable: executable, arguments: arguments)
    process = child
    guard child.waitForLine(timeout: 20, where: { $0.contains("Ready to accept connections") }) != nil,
      child.waitForExit(timeout: 0) == nil
    else {
      let output = child.output.suffix(5).joined(separator: "\n")
      child.terminate()
      throw RawSocketError.failed("redis-server did not start on port \(port): \(output)")
    }
  }

  /// SIGKILL by PID, and waits for the exit: a crash, nothing flushed beyond what was fsynced.
  public func kill() {
    process?.terminate()
    process = nil
  }

  /// Stops the server (SIGKILL by PID) and removes its directory.
  public func stop() {
    kill()
    directory.remove()
  }

  deinit { stop() }
}
