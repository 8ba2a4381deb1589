import Foundation
import ReorderBasics
import ReorderRedis
import ReorderRooms
import TestSupport
import Testing

@testable import ReorderCluster

/// `ClusterAppender` against a real `redis-server` (stopped by PID): what each append carries
/// reaches `reorder_append_ops`.
@Suite("Cluster mode: the appender's calls")
struct ClusterAppenderTests {
  /// Appends `appends` through a started appender and returns their answers, in order.
  static func answers(_ appends: [LogAppend], redis: RedisServer) throws -> [LogAnswer] {
    let link = RedisLink(
      url: RedisURL(host: "127.0.0.1", port: redis.port),
      prepare: { (connection) throws(RedisError) in try connection.loadFunctions() })
    let received = Locked<[LogAnswer]>([])
    let appender = ClusterAppender(link: link, health: ClusterHealth()) { answers in
      received.withLock { $0 += answers }
    }
    appender.start()
    defer { appender.stop() }
    for append in appends { appender.append(append) }
    #expect(waitUntil(timeout: 10) { received.withLock { $0.count } == appends.count })
    return received.withLock { $0 }
  }

  @Test("an op made on a replica of a history that is gone does not start a new one (creates 0 reaches Redis)")
  func createsReachesRedis() throws {
    let redis = try RedisServer()
    defer { redis.stop() }
    let made = LogAppend(
      room: "gone", epoch: "e1", key: Array("c:1".utf8), node: "n", payload: [1], ticket: 1, creates: false)
    let fresh = LogAppend(
      room: "new", epoch: "e2", key: Array("c:2".utf8), node: "n", payload: [2], ticket: 2, creates: true)
    let answers = try Self.answers([made, fresh], redis: redis)
    #expect(answers.count == 2)
    #expect(answers.first { $0.append.ticket == 1 }?.result == .failure(.epoch("")))
    #expect(answers.first { $0.append.ticket == 2 }?.result == .success(.applied(1)))
  }

  @Test("A round trip takes 500 appends and the rest of the last one's room run (at most 1,000 more)")
  func batchesKeepARoomsRunTogether() {
    func queue(_ runs: [(String, Int)]) -> [LogAppend] {
      runs.flatMap { room, count in
        (0..<count).map { LogAppend(room: room, epoch: "e", key: [], node: "n", payload: [], ticket: UInt64($0)) }
      }
    }
    #expect(ClusterAppender.batchCount([]) == 0)
    #expect(ClusterAppender.batchCount(queue([("a", 10), ("b", 10)])) == 20)
    #expect(ClusterAppender.batchCount(queue([("a", 499), ("b", 1_000), ("c", 5)])) == 1_499)
    #expect(ClusterAppender.batchCount(queue([("a", 500), ("b", 1_000)])) == 500)
    #expect(ClusterAppender.batchCount(queue([("a", 3_000)])) == 1_500)
  }
}
