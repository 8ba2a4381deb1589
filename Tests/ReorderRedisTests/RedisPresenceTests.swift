import Foundation
import ReorderRedis
import TestSupport
import Testing

@Suite("Redis presence: sharded pub/sub across nodes")
struct RedisPresenceTests {
  @Test("A node receives the presence messages of other nodes for the rooms it follows, not its own")
  func publishAndSubscribe() throws {
    let redis = try RedisFixture()
    let nodeB = PresenceSubscriber(url: redis.url(), nodeID: "B")
    let nodeA = PresenceSubscriber(url: redis.url(), nodeID: "A")
    defer {
      nodeA.close()
      nodeB.close()
    }
    nodeB.follow(["room-1", "room-2"])
    nodeA.follow(["room-1"])
    // Both subscriptions are in place once a publish reaches three channel subscribers' worth.
    #expect(
      waitUntil(timeout: 5) {
        _ = try? nodeA.receive(waitSeconds: 0)
        _ = try? nodeB.receive(waitSeconds: 0)
        return
          (try? redis.connection.command("PUBSUB", "SHARDNUMSUB", ClusterKeys(room: "room-1").presence).elements?
          .last?.integer) == 2
      })
    // Shard channels (SSUBSCRIBE), each in its room's slot: none is a classic channel.
    let sharded = try redis.connection.command("PUBSUB", "SHARDCHANNELS").elements?.compactMap(\.text) ?? []
    #expect(Set(sharded) == [ClusterKeys(room: "room-1").presence, ClusterKeys(room: "room-2").presence])
    #expect(try redis.connection.command("PUBSUB", "CHANNELS").elements == [])
    let payload: [UInt8] = [0x7B, 0, 0x0A, 0xFF, 0x7D]
    #expect(try redis.connection.publishPresence(room: "room-1", node: "A", payload: payload) == 2)
    #expect(try redis.connection.publishPresence(room: "room-2", node: "C", payload: bytes("c")) == 1)
    var received: [PresenceMessage] = []
    waitUntil(timeout: 5) {
      received += (try? nodeB.receive(waitSeconds: 0.05)) ?? []
      return received.count >= 2
    }
    #expect(
      received == [
        PresenceMessage(room: "room-1", node: "A", payload: payload),
        PresenceMessage(room: "room-2", node: "C", payload: bytes("c")),
      ])
    // A's own message was dropped; B's reaches A.
    #expect(try redis.connection.publishPresence(room: "room-1", node: "B", payload: []) == 2)
    var atA: [PresenceMessage] = []
    waitUntil(timeout: 5) {
      atA += (try? nodeA.receive(waitSeconds: 0.05)) ?? []
      return !atA.isEmpty
    }
    #expect(atA == [PresenceMessage(room: "room-1", node: "B", payload: [])])
  }

  @Test("After unfollowing a room its messages no longer arrive")
  func unfollow() throws {
    let redis = try RedisFixture()
    let node = PresenceSubscriber(url: redis.url(), nodeID: "B")
    defer { node.close() }
    node.follow(["r"])
    #expect(
      waitUntil(timeout: 5) {
        _ = try? node.receive(waitSeconds: 0)
        return (try? redis.connection.publishPresence(room: "r", node: "A", payload: [])) == 1
      })
    node.unfollow(["r"])
    #expect(node.rooms.isEmpty)
    #expect(waitUntil(timeout: 5) { (try? redis.connection.publishPresence(room: "r", node: "A", payload: [])) == 0 })
    // Drain what arrived while subscribed.
    waitUntil(timeout: 5) { (try? node.receive(waitSeconds: 0.05))?.isEmpty ?? true }
    #expect(try redis.connection.publishPresence(room: "r", node: "A", payload: bytes("late")) == 0)
    #expect(try node.receive(waitSeconds: 0.05).isEmpty)
  }

  @Test("A receive takes at most its limit; the rest come with the next receive")
  func receiveLimit() throws {
    let redis = try RedisFixture()
    let node = PresenceSubscriber(url: redis.url(), nodeID: "B")
    defer { node.close() }
    node.follow(["r"])
    // Subscribing happens in a receive: probe until the subscription is in place.
    #expect(
      waitUntil(timeout: 5) {
        _ = try? node.receive(waitSeconds: 0, limit: 0)
        return (try? redis.connection.publishPresence(room: "r", node: "A", payload: [0])) == 1
      })
    _ = try redis.connection.pipeline((1...9).map { ["SPUBLISH", ClusterKeys(room: "r").presence, "A\n\($0)"] })
    var payloads: [String] = []
    // The confirmation and the probe(s) first, then the nine in order.
    waitUntil(timeout: 5) {
      let batch = (try? node.receive(waitSeconds: 0.05, limit: 4)) ?? []
      #expect(batch.count <= 4)
      payloads += batch.map { String(decoding: $0.payload, as: UTF8.self) }
      return payloads.suffix(9) == (1...9).map(String.init)[...]
    }
    #expect(payloads.suffix(9) == (1...9).map(String.init)[...])
  }

  @Test("A subscriber whose Redis died fails as connectionLost, then cannot connect")
  func subscriberLost() throws {
    let redis = try RedisFixture()
    let node = PresenceSubscriber(url: redis.url(), nodeID: "B")
    defer { node.close() }
    node.follow(["r"])
    _ = try node.receive(waitSeconds: 0)
    redis.server.kill()
    #expect {
      _ = try node.receive(waitSeconds: 5)
      _ = try node.receive(waitSeconds: 5)
    } throws: { error in
      if case .connectionLost = error as? RedisError { return true }
      return false
    }
    #expect {
      _ = try node.receive(waitSeconds: 0)
    } throws: { error in
      if case .cannotConnect = error as? RedisError { return true }
      return false
    }
  }

  @Test("Presence channel names map back to their room")
  func channelNames() {
    #expect(ClusterKeys(room: "a.b-c_1").presence == "reorder:{a.b-c_1}:presence")
    #expect(ClusterKeys.room(ofPresenceChannel: "reorder:{a.b-c_1}:presence") == "a.b-c_1")
    #expect(ClusterKeys.room(ofPresenceChannel: "reorder:{}:presence") == nil)
    #expect(ClusterKeys.room(ofPresenceChannel: "other") == nil)
  }
}
