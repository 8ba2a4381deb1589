import Foundation
import ReorderRedis
import TestSupport
import Testing

@Suite("Redis failures: crash and restart, Redis down, reconnects, AUTH and SELECT")
struct RedisFailureTests {
  @Test("SIGKILL of redis-server and a restart on the same directory keep every acknowledged op")
  func crashKeepsAcknowledgedOps() throws {
    let redis = try RedisFixture()
    var acknowledged: [UInt64] = []
    for i in 1...300 {
      let outcome = try redis.connection.append(
        room: "r", epoch: "e1", key: bytes("k\(i)"), node: "n", payload: bytes("op\(i)"))
      guard case .applied(let seq) = outcome else { Issue.record("op \(i): \(outcome)"); return }
      acknowledged.append(seq)
    }
    try redis.connection.putSnapshot(room: "r", seq: 300, bytes: [0, 1])
    redis.server.kill()
    try redis.server.start()
    let after = try redis.connect()
    let entries = try after.entries(room: "r", after: 0, limit: 1_000)
    #expect(entries.map(\.seq) == acknowledged)
    #expect(entries.last?.op == bytes("op300"))
    #expect(try after.snapshot(room: "r") == ClusterSnapshot(seq: 300, bytes: [0, 1]))
    // The function library persisted with the data: appends work before any FUNCTION LOAD.
    #expect(try after.appendSample(room: "r", 300...301) == [.known(seq: 300), .applied(seq: 301)])
  }

  @Test("SIGKILL of redis-server during appends: every acknowledged op survives the restart; re-sent ops land once")
  func crashDuringAppends() throws {
    let redis = try RedisFixture()
    let link = RedisLink(url: redis.url(), backoff: RedisBackoff(initialSeconds: 0.01, maximumSeconds: 0.05))
    let acknowledged = SharedValue<[String: UInt64]>([:])
    let failures = SharedValue(0)
    let stop = SharedValue(false)
    let done = DispatchSemaphore(value: 0)
    Thread {
      var next = 1
      let deadline = Date(timeIntervalSinceNow: 30)
      while !stop.value, Date() < deadline {
        let key = "k\(next)"
        // The same key is sent again until it is acknowledged, as a client re-sends an op.
        let outcome = try? link.run { (c) throws(RedisError) in
          try c.append(room: "r", epoch: "e1", key: bytes(key), node: "n", payload: bytes(key))
        }
        switch outcome {
        case .applied(let seq)?, .known(let seq)?:
          acknowledged.update { $0[key] = seq }
          next += 1
        default:
          failures.update { $0 += 1 }
        }
      }
      done.signal()
    }.start()
    #expect(waitUntil(timeout: 10) { acknowledged.value.count >= 100 })
    redis.server.kill()
    let beforeCrash = acknowledged.value
    #expect(waitUntil(timeout: 10) { failures.value > 0 })
    try redis.server.start()
    #expect(waitUntil(timeout: 10) { acknowledged.value.count >= beforeCrash.count + 50 })
    stop.set(true)
    #expect(done.wait(timeout: .now() + 10) == .success)
    let entries = try redis.connect().entries(room: "r", after: 0, limit: 100_000)
    let logged = Dictionary(entries.map { (String(decoding: $0.key, as: UTF8.self), $0.seq) }) { first, _ in first }
    #expect(entries.map(\.seq) == Array(1...UInt64(entries.count)))  // gap-free
    #expect(logged.count == entries.count)  // each key once: re-sent ops were not appended twice
    #expect(beforeCrash.allSatisfy { logged[$0.key] == $0.value })
    #expect(acknowledged.value.allSatisfy { logged[$0.key] == $0.value })
  }

  @Test("With nothing listening, connecting fails with an error naming the endpoint")
  func connectRefused() {
    let port = freePort()
    #expect {
      try RedisConnection(url: RedisURL(host: "127.0.0.1", port: port), timeouts: RedisTimeouts(connectSeconds: 1))
    } throws: { error in
      guard case .cannotConnect(let endpoint, let reason) = error as? RedisError else { return false }
      return endpoint == "redis://127.0.0.1:\(port)/0" && reason.contains("refused")
        && "\(error)".contains("is redis-server running")
    }
  }

  @Test("A command on a connection whose Redis died fails as connectionLost, and so does every later one")
  func connectionLost() throws {
    let redis = try RedisFixture()
    let metricsBefore = redis.metrics.snapshot.connectionsLost
    redis.server.kill()
    #expect {
      try redis.connection.command("PING")
    } throws: { error in
      guard case .connectionLost(let command, _) = error as? RedisError else { return false }
      return command == "PING" && (error as! RedisError).isConnectionFailure
    }
    #expect(redis.connection.isBroken)
    #expect {
      try redis.connection.meta(room: "r")
    } throws: { error in
      guard case .connectionLost(let command, let reason) = error as? RedisError else { return false }
      return command == "HMGET" && reason.contains("already failed")
    }
    #expect(redis.metrics.snapshot.connectionsLost == metricsBefore + 1)
  }

  @Test("A reply slower than the command timeout fails as connectionLost, saying so")
  func replyTimeout() throws {
    let redis = try RedisFixture()
    let impatient = try RedisConnection(url: redis.url(), timeouts: RedisTimeouts(commandSeconds: 0.2))
    // BLPOP on an empty list holds the reply for 30 s, far beyond the 0.2 s timeout.
    #expect {
      try impatient.command("BLPOP", "nothing", 30)
    } throws: { error in
      guard case .connectionLost(let command, let reason) = error as? RedisError else { return false }
      return command == "BLPOP" && reason.contains("no reply within")
    }
    #expect(impatient.isBroken)
    #expect(try redis.connection.command("PING") == .status("PONG"))
  }

  @Test("Writing a large pipeline to a Redis that died fails as connectionLost; SIGPIPE does not end the process")
  func writeToDeadRedis() throws {
    let redis = try RedisFixture()
    redis.server.kill()
    let large = [UInt8](repeating: 7, count: 4 << 20)
    #expect {
      _ = try redis.connection.pipeline((0..<4).map { ["SET", "k\($0)", large] })
    } throws: { error in
      if case .connectionLost = error as? RedisError { return true }
      return false
    }
  }

  @Test("A link reports Redis down, backs off, and reconnects once it is back; the reconnect is counted")
  func linkReconnectsWithBackoff() throws {
    let redis = try RedisFixture()
    let clock = SharedValue(100.0)
    let prepared = SharedValue(0)
    let link = RedisLink(
      url: redis.url(), metrics: redis.metrics, backoff: RedisBackoff(initialSeconds: 1, maximumSeconds: 4),
      now: { clock.value },
      prepare: { (connection) throws(RedisError) in
        prepared.update { $0 += 1 }
        try connection.loadFunctions()
      })
    #expect(try link.run { (c) throws(RedisError) in try c.appendSample(room: "r", 1...1) } == [.applied(seq: 1)])
    #expect(redis.metrics.snapshot.reconnects == 0)
    redis.server.kill()
    // The lost connection is noticed by the command that needed it…
    #expect(throws: RedisError.self) { try link.run { (c) throws(RedisError) in try c.ping() } }
    #expect(!link.isConnected)
    // … the next call tries at once and fails to connect; then the backoff waits 1 s, 2 s, …
    #expect {
      try link.run { (c) throws(RedisError) in try c.ping() }
    } throws: { error in
      if case .cannotConnect = error as? RedisError { return true }
      return false
    }
    #expect(throws: RedisError.unavailable(retryInSeconds: 1, lastError: link.lastFailure!.description)) {
      try link.run { (c) throws(RedisError) in try c.ping() }
    }
    clock.update { $0 += 1 }
    // The attempt is due: tried, and Redis is still down.
    #expect(throws: RedisError.self) { try link.run { (c) throws(RedisError) in try c.ping() } }
    clock.update { $0 += 1 }
    #expect {
      try link.run { (c) throws(RedisError) in try c.ping() }
    } throws: { error in
      guard case .unavailable(let seconds, _) = error as? RedisError else { return false }
      return seconds == 1  // 2 s after the second failure, 1 s of it passed
    }
    try redis.server.start()
    clock.update { $0 += 1 }
    #expect(
      try link.run { (c) throws(RedisError) in try c.appendSample(room: "r", 1...2) } == [
        .known(seq: 1), .applied(seq: 2),
      ])
    #expect(link.isConnected && link.lastFailure == nil)
    #expect(prepared.value == 2)
    #expect(redis.metrics.snapshot.reconnects == 1)
  }

  @Test("Backoff doubles up to its maximum and starts again after a success")
  func backoffSequence() {
    var backoff = RedisBackoff(initialSeconds: 0.05, maximumSeconds: 0.3)
    #expect((0..<5).map { _ in backoff.failed() } == [0.05, 0.1, 0.2, 0.3, 0.3])
    backoff.succeeded()
    #expect(backoff.failed() == 0.05)
  }

  @Test("AUTH with the password file's password and SELECT of the URL's database")
  func authAndSelect() throws {
    let redis = try RedisFixture(password: "pa ss:word")
    #expect {
      try RedisConnection(url: redis.url(password: "wrong"))
    } throws: { error in
      guard case .cannotConnect(_, let reason) = error as? RedisError else { return false }
      return reason.contains("WRONGPASS") && !"\(error)".contains("wrong")
    }
    #expect {
      try RedisConnection(url: redis.url()).command("PING")
    } throws: { error in
      guard case .server(let command, let message) = error as? RedisError else { return false }
      return command == "PING" && message.hasPrefix("NOAUTH")
    }
    var url = redis.url(password: "pa ss:word")
    url.database = 3
    let db3 = try RedisConnection(url: url)
    try db3.command("SET", "where", "db3")
    #expect(try redis.connection.command("GET", "where") == .null)
    #expect(try db3.command("GET", "where") == .bulk(bytes("db3")))
  }

  @Test("Every round trip is one observation of the latency histogram")
  func latencyHistogram() throws {
    let redis = try RedisFixture()
    let before = redis.metrics.snapshot.commandSeconds
    try redis.connection.command("PING")
    _ = try redis.connection.pipeline([["PING"], ["PING"], ["ECHO", "x"]])
    let after = redis.metrics.snapshot.commandSeconds
    #expect(after.count == before.count + 2)
    #expect(after.sum > before.sum)
    #expect(after.cumulative.last?.count == after.count)
    #expect(RedisStatistics().commandSeconds.bounds.first == 0.000_1)
  }
}
