import Foundation
import ReorderRedis
import TestSupport

/// A test's own redis-server with the function library loaded, and a connection to it.
final class RedisFixture {
  let server: RedisServer
  let metrics = RedisMetrics()
  let connection: RedisConnection

  init(password: String? = nil) throws {
    server = try RedisServer(password: password)
    connection = try RedisConnection(
      url: RedisURL(host: "127.0.0.1", port: server.port, password: password), metrics: metrics)
    try connection.loadFunctions()
  }

  /// The server's URL, with `password` (not the server's: tests of refusals pass a wrong one).
  func url(password: String? = nil) -> RedisURL {
    RedisURL(host: "127.0.0.1", port: server.port, password: password)
  }

  /// Another connection to the same server.
  func connect() throws -> RedisConnection {
    try RedisConnection(url: url(password: server.password), metrics: metrics)
  }

  deinit {
    connection.close()
    server.stop()
  }
}

/// The bytes of `text`.
func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

extension RedisCommands {
  /// Appends `count` ops to `room` in epoch `e1` from node `n1`, keys `k<i>`, payloads `op<i>`.
  func appendSample(room: String, _ range: ClosedRange<Int>, node: String = "n1") throws(RedisError) -> [AppendOutcome]
  {
    try append(
      range.map { ClusterAppend(room: room, epoch: "e1", key: bytes("k\($0)"), node: node, payload: bytes("op\($0)")) })
  }
}

extension RedisCommands {
  /// `PING` to any node: throws when it does not answer.
  func ping() throws(RedisError) {
    try command(key: nil, "PING")
  }
}
