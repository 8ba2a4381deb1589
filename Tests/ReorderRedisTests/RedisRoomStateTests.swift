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

  @Test("Roster: a node's sessions live while its heartbeat does; an unchanged roster reads as nothing new")
  func rosterHeartbeats() throws {
    let redis = try RedisFixture()
    let c = redis.connection
    let ann = ClusterRosterEntry(session: "s1", peer: #"{"name":"Ann"}"#)
    let bob = ClusterRosterEntry(session: "s2", peer: #"{"name":"Bob"}"#)
    let cat = ClusterRosterEntry(session: "s3", peer: "{}")
    try c.putRoster(room: "r", node: "A", [ann], expiresAt: 2_000)
    try c.putRoster(room: "r", node: "B", [bob, cat], expiresAt: 1_000)
    let first = try c.readRoster(room: "r", now: 500, known: nil)
    #expect(first.entries.map { Set($0.map(\.session)) } == ["s1", "s2", "s3"])
    #expect(first.entries?.first { $0.session == "s1" } == ann, "the peer JSON comes back without the node")
    #expect(
      try c.readRoster(room: "r", now: 600, known: first.version) == ClusterRoster(version: first.version, entries: nil)
    )
    // B's heartbeat is past: its sessions go, once, and the version moves on.
    let second = try c.readRoster(room: "r", now: 1_500, known: first.version)
    #expect(second.version != first.version && second.entries == [ann])
    #expect(try c.readRoster(room: "r", now: 1_500, known: second.version).entries == nil)
    // A heartbeat of a node that was expired says so, and that node puts its sessions again.
    #expect(try !c.beatRoster(room: "r", node: "A", expiresAt: 3_000))
    #expect(try c.beatRoster(room: "r", node: "B", expiresAt: 3_000))
    try c.putRoster(room: "r", node: "B", [bob], expiresAt: 3_000)
    #expect(
      try c.readRoster(room: "r", now: 2_500, known: second.version).entries.map { Set($0.map(\.session)) } == [
        "s1", "s2",
      ])
    #expect(try c.removeRoster(room: "r", sessions: ["s1", "s9"]) == 1)
    #expect(try c.removeRoster(room: "r", sessions: ["s2"]) == 1)
    #expect(try c.readRoster(room: "r", now: 2_500, known: nil).entries == [])
    #expect(try c.command("EXISTS", ClusterKeys(room: "r").roster).integer == 0)
  }

}
