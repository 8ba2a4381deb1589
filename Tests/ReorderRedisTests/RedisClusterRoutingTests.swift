import Foundation
import TestSupport
import Testing

@testable import ReorderRedis

/// Redis Cluster routing: the key slot, the slot map, redirections, against a real 3-master
/// cluster made by `redis-cli --cluster create` (each test its own, stopped by PID).
@Suite("Redis Cluster routing")
struct RedisClusterRoutingTests {
  @Test("the key slot is CRC16/XMODEM mod 16,384 of the key or of its hash tag, as the specification says")
  func keySlot() {
    #expect(RedisKeySlot.crc16(Array("123456789".utf8)) == 0x31C3)
    #expect(RedisKeySlot.slot(of: "123456789") == 0x31C3)
    #expect(RedisKeySlot.slot(of: "{user1000}.following") == RedisKeySlot.slot(of: "{user1000}.followers"))
    #expect(RedisKeySlot.slot(of: "foo{}{bar}") == RedisKeySlot.slot(of: Array("foo{}{bar}".utf8)))
    #expect(RedisKeySlot.slot(of: "foo{{bar}}zap") == RedisKeySlot.slot(of: "{bar"))
    #expect(RedisKeySlot.slot(of: "foo{bar}{zap}") == RedisKeySlot.slot(of: "bar"))
    #expect(RedisKeySlot.slot(of: "reorder:{room}:log") == RedisKeySlot.slot(of: "reorder:{room}:meta"))
    #expect(RedisKeySlot.slot(of: "") == 0)
  }

  @Test("MOVED and ASK are read from error replies; anything else is not a redirection")
  func redirects() {
    let source = RedisClusterNode(host: "10.0.0.9", port: 7000)
    #expect(
      RedisRedirect(error: "MOVED 3999 127.0.0.1:6381")
        == RedisRedirect(kind: .moved, slot: 3999, target: RedisClusterNode(host: "127.0.0.1", port: 6381)))
    #expect(RedisRedirect(error: "ASK 3999 127.0.0.1:6381")?.kind == .ask)
    #expect(
      RedisRedirect(error: "MOVED 1 :7002", from: source)?.target == RedisClusterNode(host: "10.0.0.9", port: 7002))
    #expect(RedisRedirect(error: "MOVED 1 [::1]:7002")?.target.host == "::1")
    for refused in [
      "MOVED 16384 127.0.0.1:1", "MOVED -1 h:1", "MOVED 1 h", "MOVED 1 h:0", "MOVED 1 h:70000", "ASK 1", "ERR x y z",
      "MOVED 1 :7002", "TRYAGAIN Multiple keys request during rehashing of slot",
    ] {
      #expect(RedisRedirect(error: refused) == nil, "\(refused)")
    }
  }

  @Test("a slot map refuses ranges out of bounds or overlapping; moving one slot splits its range")
  func slotMap() throws {
    let a = RedisClusterNode(host: "h", port: 1)
    let b = RedisClusterNode(host: "h", port: 2)
    #expect(throws: RedisError.self) {
      try RedisSlotMap(ranges: [.init(first: 0, last: 10, master: a), .init(first: 10, last: 20, master: b)])
    }
    #expect(throws: RedisError.self) { try RedisSlotMap(ranges: [.init(first: 0, last: 16_384, master: a)]) }
    #expect(throws: RedisError.self) { try RedisSlotMap(clusterSlots: .array([.integer(1)])) }
    let map = try RedisSlotMap(ranges: [
      .init(first: 0, last: 8_000, master: a), .init(first: 8_001, last: 16_383, master: b),
    ])
    #expect(map.coversAllSlots && map.masters == [a, b])
    let moved = map.moving(slot: 100, to: b)
    #expect(moved.master(ofSlot: 99) == a && moved.master(ofSlot: 100) == b && moved.master(ofSlot: 101) == a)
    #expect(moved.coversAllSlots && moved.ranges.count == 4)
  }

  @Test(
    "on a real cluster: our slot is CLUSTER KEYSLOT's, the map covers every slot over 3 masters, and keys land on their slot's master"
  )
  func routesToMasters() throws {
    let cluster = try RedisClusterServers(masters: 3)
    defer { cluster.stop() }
    let client = RedisClusterClient(seeds: [RedisURL(host: "127.0.0.1", port: cluster.servers[1].port)])
    defer { client.close() }
    let keys = (0..<300).map { "reorder:{room-\($0)}:log" } + ["plain", "{a}b", "x{}y"]
    for key in keys.prefix(40) {
      let answer = try #require(try client.command(key: key, ["CLUSTER", "KEYSLOT", key]).integer)
      #expect(Int(answer) == RedisKeySlot.slot(of: key), "\(key)")
    }
    let map = try #require(client.map)
    #expect(map.coversAllSlots && map.masters.count == 3)
    for key in keys { try client.command(key: key, ["SET", key, "v-" + key]) }
    #expect(client.counts.moved == 0 && client.counts.asked == 0 && client.counts.mapReads == 1)
    var total = 0
    for server in cluster.servers {
      let count = Int(try cluster.cli(server, ["DBSIZE"]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
      #expect(count > 0, "every master holds some of the keys")
      total += count
    }
    #expect(total == keys.count)
    for key in keys.suffix(20) {
      #expect(try client.command(key: key, ["GET", key]).text == "v-" + key)
    }
  }

  @Test(
    "a slot moved to another master: MOVED is followed (map read again); a slot being migrated: ASK is followed with ASKING"
  )
  func followsRedirects() throws {
    let cluster = try RedisClusterServers(masters: 3)
    defer { cluster.stop() }
    let client = RedisClusterClient(seeds: cluster.servers.map { RedisURL(host: "127.0.0.1", port: $0.port) })
    defer { client.close() }
    let key = "reorder:{moving}:log"
    let slot = RedisKeySlot.slot(of: key)
    try client.command(key: key, ["SET", key, "before"])
    let map = try #require(client.map)
    let owner = try #require(map.master(ofSlot: slot))
    let source = try #require(cluster.servers.first { $0.port == owner.port })
    let target = try #require(cluster.servers.first { $0.port != owner.port })
    func id(_ server: RedisServer) throws -> String {
      try cluster.cli(server, ["CLUSTER", "MYID"]).trimmingCharacters(in: .whitespacesAndNewlines)
    }
    let (sourceID, targetID) = (try id(source), try id(target))

    // Migrating: the key stays on the source until moved; a key the source lacks is asked of the target.
    _ = try cluster.cli(target, ["CLUSTER", "SETSLOT", String(slot), "IMPORTING", sourceID])
    _ = try cluster.cli(source, ["CLUSTER", "SETSLOT", String(slot), "MIGRATING", targetID])
    #expect(try client.command(key: key, ["GET", key]).text == "before")
    #expect(client.counts.asked == 0)
    let fresh = "reorder:{moving}:meta"
    try client.command(key: fresh, ["SET", fresh, "new"])
    #expect(client.counts.asked == 1, "the source asked the target for a key it does not hold")
    #expect(try cluster.cli(target, ["CLUSTER", "COUNTKEYSINSLOT", String(slot)]).contains("1"))
    _ = try cluster.cli(source, ["MIGRATE", "127.0.0.1", String(target.port), "", "0", "5000", "KEYS", key])
    #expect(try client.command(key: key, ["GET", key]).text == "before")
    #expect(client.counts.asked == 2)

    // Moved for good: the client still has the old map, is told MOVED, and reads the map again.
    for server in cluster.servers {
      _ = try cluster.cli(server, ["CLUSTER", "SETSLOT", String(slot), "NODE", targetID])
    }
    let reads = client.counts.mapReads
    #expect(try client.command(key: key, ["GET", key]).text == "before")
    #expect(client.counts.moved == 1 && client.counts.mapReads > reads)
    #expect(client.map?.master(ofSlot: slot)?.port == target.port)
    #expect(try client.command(key: fresh, ["GET", fresh]).text == "new")
    #expect(client.counts.moved == 1, "the map read after MOVED already knew")
  }

  @Test(
    "a connection the master closed is made again and the command re-sent; a pipeline of one slot is one round trip")
  func reconnects() throws {
    let cluster = try RedisClusterServers(masters: 3)
    defer { cluster.stop() }
    let client = RedisClusterClient(seeds: [RedisURL(host: "127.0.0.1", port: cluster.servers[0].port)])
    defer { client.close() }
    let key = "reorder:{kill}:log"
    let replies = try client.pipeline(
      key: key, [["RPUSH", key, "a"], ["RPUSH", key, "b"], ["LRANGE", key, "0", "-1"]])
    #expect(replies.count == 3 && replies[2] == .array([.bulk(Array("a".utf8)), .bulk(Array("b".utf8))]))
    for server in cluster.servers {
      _ = try cluster.cli(server, ["CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes"])
    }
    #expect(try client.command(key: key, ["LLEN", key]).integer == 2)
  }

  @Test("a master down fails only its rooms' ops: the other masters' ops of the same pipeline are appended")
  func deadMasterFailsOnlyItsRooms() throws {
    let cluster = try RedisClusterServers(masters: 3)
    defer { cluster.stop() }
    let client = RedisClusterClient(
      seeds: cluster.servers.map { RedisURL(host: "127.0.0.1", port: $0.port) },
      prepare: { (redis) throws(RedisError) in try redis.loadFunctions() })
    defer { client.close() }
    _ = client.probe()
    let map = try #require(client.map)
    let victim = cluster.servers[0]
    let rooms = (0..<12).map { "r\($0)" }
    let onVictim = Set(rooms.filter { map.master(ofKey: Array(ClusterKeys(room: $0).meta.utf8))?.port == victim.port })
    try #require(!onVictim.isEmpty && onVictim.count < rooms.count, "rooms on the victim and elsewhere")
    func ops(_ round: Int) -> [ClusterAppend] {
      rooms.map { ClusterAppend(room: $0, epoch: "e1", key: Array("k\(round)".utf8), node: "n1", payload: [1]) }
    }
    #expect(try client.settledAppend(ops(1)).allSatisfy { (try? $0.get()) == .applied(seq: 1) })
    victim.kill()
    let results = try client.settledAppend(ops(2))
    for (room, result) in zip(rooms, results) {
      if onVictim.contains(room) {
        #expect(throws: RedisError.self, "\(room) is on the dead master") { try result.get() }
        #expect((try? result.get()) == nil)
      } else {
        #expect((try? result.get()) == .applied(seq: 2), "\(room)")
      }
    }
    let probed = client.probe()
    #expect(probed.filter { $0.failure != nil }.map(\.node) == ["127.0.0.1:\(victim.port)"])
  }

  @Test("a slot the map gives no master: the probe names it, and once a master serves it again the map is read again")
  func mapHole() throws {
    let cluster = try RedisClusterServers(masters: 3)
    defer { cluster.stop() }
    let client = RedisClusterClient(seeds: [RedisURL(host: "127.0.0.1", port: cluster.servers[0].port)])
    defer { client.close() }
    let key = "reorder:{hole}:log"
    try client.command(key: key, ["SET", key, "before"])
    let slot = RedisKeySlot.slot(of: key)
    let owner = try #require(cluster.servers.first { $0.port == client.map?.master(ofSlot: slot)?.port })
    // Every master forgets who serves the slot: the cluster has a hole there. The owner first: a
    // master that dropped the slot learns it again from the gossip of an owner that still claims it.
    let others = cluster.servers.filter { $0.port != owner.port }
    for server in [owner] + others { _ = try cluster.cli(server, ["CLUSTER", "DELSLOTS", String(slot)]) }
    #expect(client.probe().contains { $0.node == "slots without a master" && $0.failure != nil })
    #expect(client.map?.master(ofSlot: slot) == nil)
    #expect(throws: RedisError.self) { try client.command(key: key, ["GET", key]) }
    // The owner takes it back; the others learn it by gossip. The client reads the map again by itself.
    _ = try cluster.cli(owner, ["CLUSTER", "ADDSLOTS", String(slot)])
    #expect(
      waitUntil(timeout: 15, pollMilliseconds: 200) {
        (try? client.command(key: key, ["GET", key]).text) == "before"
      })
    #expect(!client.probe().contains { $0.failure != nil })
  }
}
