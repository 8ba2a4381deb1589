import Foundation
import ReorderRedis
import TestSupport
import Testing

@Suite("Redis board list: summaries and the directory")
struct RedisSummaryTests {
  func summary(_ seq: UInt64, epoch: String = "e1", lists: Int = 1, items: Int = 2) -> ClusterSummary {
    ClusterSummary(epoch: epoch, seq: seq, lists: lists, items: items, updatedMilliseconds: 1_700_000_000_123)
  }

  @Test("A summary is stored only for a room in the log, of its epoch, and never behind the one stored")
  func storedOnlyWhenCurrent() throws {
    let redis = try RedisFixture()
    let r = redis.connection
    // No log meta yet (or deleted): nothing stored, nothing listed.
    #expect(try r.putSummary(room: "r", summary(1)) == (false, nil))
    #expect(try r.listBoards(after: nil, limit: 10, now: 0).isEmpty)
    _ = try r.appendSample(room: "r", 1...3)
    let first = try r.putSummary(room: "r", summary(3))
    #expect(first.stored && first.previous == nil)
    #expect(try r.summary(room: "r") == summary(3))
    // Behind or equal: refused, and the stored one comes back (its seq: how far it was reported).
    let behind = try r.putSummary(room: "r", summary(2, items: 9))
    #expect(!behind.stored && behind.previous == summary(3))
    #expect(try !r.putSummary(room: "r", summary(3, items: 9)).stored)
    let ahead = try r.putSummary(room: "r", summary(4, items: 5))
    #expect(ahead.stored && ahead.previous == summary(3))
    // Another epoch than the log's (a replaced board's old history): refused.
    #expect(try !r.putSummary(room: "r", summary(9, epoch: "old")).stored)
    #expect(try r.summary(room: "r")?.seq == 4)
  }

  @Test("The directory pages by name after a cursor, with each room's summary and live roster count")
  func listPages() throws {
    let redis = try RedisFixture()
    let r = redis.connection
    for (index, room) in ["b", "a", "c-1", "c.2", "d"].enumerated() {
      _ = try r.appendSample(room: room, 1...(index + 1))
      #expect(try r.putSummary(room: room, summary(UInt64(index + 1))).stored)
    }
    try r.putRoster(
      room: "a", node: "A",
      [ClusterRosterEntry(session: "s1", peer: "{}"), ClusterRosterEntry(session: "s2", peer: "{}")], expiresAt: 5_000)
    try r.putRoster(room: "a", node: "B", [ClusterRosterEntry(session: "s3", peer: "{}")], expiresAt: 1_000)
    #expect(try r.listBoards(after: nil, limit: 1, now: 500).first?.online == 3)
    let first = try r.listBoards(after: nil, limit: 2, now: 2_000)
    #expect(first.map(\.room) == ["a", "b"])
    #expect(first[0].online == 2, "node B's heartbeat ended at 1,000, and its session s3 with it")
    #expect(first[0].summary?.seq == 2)
    #expect(first[1].online == 0)
    let second = try r.listBoards(after: "b", limit: 2, now: 2_000)
    #expect(second.map(\.room) == ["c-1", "c.2"])
    #expect(try r.listBoards(after: "c.2", limit: 2, now: 2_000).map(\.room) == ["d"])
    #expect(try r.listBoards(after: "d", limit: 2, now: 2_000).isEmpty)
    // A name between two listed ones (not listed itself) is a valid place to start from.
    #expect(try r.listBoards(after: "bb", limit: 5, now: 2_000).map(\.room) == ["c-1", "c.2", "d"])
  }

  @Test("Deleting a board's keys and removing it from the directory leaves no trace in the list")
  func removedFromTheDirectory() throws {
    let redis = try RedisFixture()
    let r = redis.connection
    _ = try r.appendSample(room: "gone", 1...2)
    #expect(try r.putSummary(room: "gone", summary(2)).stored)
    #expect(try r.deleteRoom("gone"))
    #expect(try r.summary(room: "gone") == nil, "the summary is one of the room's keys")
    // Until it leaves the directory, the list names it without a summary.
    #expect(try r.listBoards(after: nil, limit: 5, now: 0).map(\.summary) == [nil])
    #expect(try r.removeFromDirectory(room: "gone"))
    #expect(try !r.removeFromDirectory(room: "gone"))
    #expect(try r.listBoards(after: nil, limit: 5, now: 0).isEmpty)
    // A late write of the deleted room's holder stores nothing: its log meta is gone.
    #expect(try !r.putSummary(room: "gone", summary(3)).stored)
    #expect(try r.listBoards(after: nil, limit: 5, now: 0).isEmpty)
  }
}
