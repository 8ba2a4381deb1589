import Foundation
import ReorderRedis
import TestSupport
import Testing

@Suite("Redis appends channel: each logged entry published on its room's shard channel")
struct RedisAppendsChannelTests {
  @Test(
    "Each call publishes the entries it logged, in seq order, in one notice; a known or refused op publishes nothing")
  func noticesAreTheLog() throws {
    let redis = try RedisFixture()
    let subscriber = ShardedSubscriber(target: .single(redis.url()))
    defer { subscriber.close() }
    let channel = ClusterKeys(room: "a").appends
    subscriber.subscribe([channel])
    var events: [ShardEvent] = []
    #expect(
      waitUntil(timeout: 5) {
        events += (try? subscriber.receive(waitSeconds: 0.05)) ?? []
        return events.contains(.subscribed(channel: channel))
      })
    _ = try redis.connection.appendSample(room: "a", 1...2)
    let binary: [UInt8] = [0, 0x0A, 0x20, 0xFF]
    _ = try redis.connection.append(room: "a", epoch: "e1", key: binary, node: "n 2", payload: binary)
    #expect(try redis.connection.appendSample(room: "a", 1...1) == [.known(seq: 1)])
    #expect(
      try redis.connection.append(room: "a", epoch: "other", key: [9], node: "n1", payload: [])
        == .epochMismatch(current: "e1"))
    _ = try redis.connection.appendSample(room: "b", 1...1)  // another room's channel
    var messages: [[ClusterLogEntry]] = []
    waitUntil(timeout: 5) {
      for case .message(let from, let payload) in (try? subscriber.receive(waitSeconds: 0.05)) ?? [] {
        #expect(from == channel)
        messages.append(ClusterNotice.entries(payload) ?? [])
      }
      return messages.joined().count >= 3
    }
    let notices = Array(messages.joined())
    #expect(notices == (try redis.connection.entries(room: "a", after: 0)))
    #expect(messages.map { $0.map(\.seq) } == [[1, 2], [3]], "one notice per call")
    #expect(notices.last == ClusterLogEntry(seq: 3, node: "n 2", key: binary, op: binary, epoch: "e1"))
    #expect((try subscriber.receive(waitSeconds: 0.1)).isEmpty, "nothing more: the known and refused ops")
  }

  @Test("A notice is read back exactly, one entry or several; anything else is not a notice")
  func noticeBytes() {
    #expect(
      ClusterNotice.entries(Array("12 2 1 3 8\ne1nkeyop\nbytes".utf8))
        == [ClusterLogEntry(seq: 12, node: "n", key: Array("key".utf8), op: Array("op\nbytes".utf8), epoch: "e1")])
    #expect(
      ClusterNotice.entries(Array("4 1 1 1 2\neNkop5 0 2 0 0\nn2".utf8))
        == [
          ClusterLogEntry(seq: 4, node: "N", key: Array("k".utf8), op: Array("op".utf8), epoch: "e"),
          ClusterLogEntry(seq: 5, node: "n2", key: [], op: [], epoch: ""),
        ])
    // Four numbers: one entry whose op is the rest, as a library of the previous release writes.
    #expect(
      ClusterNotice.entries(Array("12 2 1 3\ne1nkeyop\nbytes".utf8))
        == [ClusterLogEntry(seq: 12, node: "n", key: Array("key".utf8), op: Array("op\nbytes".utf8), epoch: "e1")])
    #expect(
      ClusterNotice.entries(Array("1 0 0 0\n".utf8)) == [ClusterLogEntry(seq: 1, node: "", key: [], op: [], epoch: "")])
    for bad in [
      "", "\n", "0 0 0 0\n", "1 0 0\n", "1 0 0 0 0 0\n", "1 5 0 0\nabc", "1 1 1 1\nab", "x 0 0 0\n", "1 -1 0 0\n",
      "1 0 0 0 3\nab", "1 0 0 0 0\nx", "1 0 0 0 0\n2 0 0 0 1\n", "1 0 0 0 0\n\n",
    ] {
      #expect(ClusterNotice.entries(Array(bad.utf8)) == nil, "\(bad.debugDescription)")
    }
    #expect(ClusterNotice.entries(Array("1 99999999999999999999 0 0\n".utf8)) == nil)
    let binary = [
      ClusterLogEntry(seq: 7, node: "n", key: [0, 0x0A], op: [0xFF, 0x0A], epoch: "e 1"),
      ClusterLogEntry(seq: 8, node: "n", key: [1], op: Array("4 0 0 0\n".utf8), epoch: "e 1"),
    ]
    #expect(ClusterNotice.entries(ClusterNotice.bytes(of: binary)) == binary)
  }
}
