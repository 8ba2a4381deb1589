import Foundation
import ReorderRedis
import TestSupport
import Testing

@Suite("Redis room state: snapshot, lease, roster")
struct RedisRoomStateTests {
  @Test("The latest snapshot is kept; an older one does not replace it; meta knows its seq")
  func snapshots() throws {
    let redis = try RedisFixture()
    #expect(try redis.connection.snapshot(room: "r") == nil)
    #expect(try redis.connection.putSnapshot(room: "r", seq: 10, bytes: [1, 0, 2]))
    #expect(try !redis.connection.putSnapshot(room: "r", seq: 5, bytes: [9]))
    #expect(try !redis.connection.putSnapshot(room: "r", seq: 10, bytes: [9]))
    #expect(try redis.connection.snapshot(room: "r") == ClusterSnapshot(seq: 10, bytes: [1, 0, 2]))
    #expect(try redis.connection.meta(room: "r").snapshotSeq == 10)
    #expect(try redis.connection.putSnapshot(room: "r", seq: 12, bytes: []))
    #expect(try redis.connection.snapshot(room: "r") == ClusterSnapshot(seq: 12, bytes: []))
  }

  @Test("One lease holder at a time: only the holder renews or releases it")
  func leaseTwoHolders() throws {
    let redis = try RedisFixture()
    let b = try redis.connect()
    #expect(try redis.connection.acquireLease(room: "r", node: "A", milliseconds: 60_000))
    #expect(try !b.acquireLease(room: "r", node: "B", milliseconds: 60_000))
    #expect(try redis.connection.acquireLease(room: "r", node: "A", milliseconds: 60_000))
    #expect(try b.leaseHolder(room: "r") == "A")
    #expect(try !b.renewLease(room: "r", node: "B", milliseconds: 60_000))
    #expect(try !b.releaseLease(room: "r", node: "B"))
    #expect(try b.leaseHolder(room: "r") == "A")
    #expect(try redis.connection.renewLease(room: "r", node: "A", milliseconds: 60_000))
    #expect(try redis.connection.releaseLease(room: "r", node: "A"))
    #expect(try !redis.connection.renewLease(room: "r", node: "A", milliseconds: 60_000))
    #expect(try b.acquireLease(room: "r", node: "B", milliseconds: 60_000))
    #expect(try b.leaseHolder(room: "r") == "B")
  }

  @Test("A lease its holder stops renewing expires and another node takes it")
  func leaseExpires() throws {
    let redis = try RedisFixture()
    #expect(try redis.connection.acquireLease(room: "r", node: "A", milliseconds: 50))
    #expect(
      waitUntil(timeout: 5) { (try? redis.connection.acquireLease(room: "r", node: "B", milliseconds: 60_000)) == true }
    )
    #expect(try !redis.connection.renewLease(room: "r", node: "A", milliseconds: 60_000))
    #expect(try redis.connection.leaseHolder(room: "r") == "B")
  }

  @Test("Roster: sessions past their expiry are not listed, expire returns them once, refresh reports the missing")
  func rosterExpiry() throws {
    let redis = try RedisFixture()
    let c = redis.connection
    try c.putRoster(room: "r", [ClusterRosterEntry(session: "s1", peer: #"{"name":"Ann"}"#)], expiresAt: 2_000)
    try c.putRoster(
      room: "r",
      [ClusterRosterEntry(session: "s2", peer: #"{"name":"Bob"}"#), ClusterRosterEntry(session: "s3", peer: "{}")],
      expiresAt: 1_000)
    #expect(try c.roster(room: "r", now: 500).map(\.session) == ["s2", "s3", "s1"])
    #expect(try c.roster(room: "r", now: 1_500) == [ClusterRosterEntry(session: "s1", peer: #"{"name":"Ann"}"#)])
    #expect(try c.expireRoster(room: "r", now: 1_500).sorted() == ["s2", "s3"])
    #expect(try c.expireRoster(room: "r", now: 1_500) == [])
    #expect(try c.refreshRoster(room: "r", sessions: ["s1", "s2"], expiresAt: 3_000) == ["s2"])
    #expect(try c.roster(room: "r", now: 2_500).map(\.session) == ["s1"])
    #expect(try c.removeRoster(room: "r", sessions: ["s1", "s9"]) == 1)
    #expect(try c.roster(room: "r", now: 0) == [])
    #expect(try c.command("EXISTS", ClusterKeys(room: "r").roster, ClusterKeys(room: "r").rosterExpiry).integer == 0)
  }
}
