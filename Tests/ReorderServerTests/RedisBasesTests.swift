import Foundation
import ReorderRedis
import ReorderRooms
import TestSupport
import Testing

@testable import ReorderCluster
@testable import ReorderServer

/// Cluster mode keeps, as one node does, the snapshots its kept log starts from (`bases`), and
/// trims the log only up to the latest of them at or before the retained windows.
@Suite("Redis: snapshots kept as bases of the kept log", .serialized)
struct RedisBasesTests {
  @Test("a snapshot is kept as a base; the trim keeps the log from the base before the windows, and drops older bases")
  func basesAndTrim() throws {
    let redis = try RedisServer()
    defer { redis.stop() }
    let url = RedisURL(host: "127.0.0.1", port: redis.port)
    let c = try RedisConnection(url: url)
    try c.loadFunctions()
    let storage = RedisRoomStorage(
      link: RedisLink(url: url, prepare: { (redis) throws(RedisError) in try redis.loadFunctions() }), node: "n",
      retainedOps: 10, health: ClusterHealth())
    var board = CRDTRoomBoard.factory.empty()
    _ = try board.perform(.createList(list: "l", title: "L", layout: "list", after: nil), ids: GeneratedIDs(seq: 1))
    func save(_ seq: UInt64) throws {
      let saved = Answer<Result<Void, RoomStoreError>>()
      storage.saveSnapshot(room: "r", snapshot: RoomSnapshot(seq: seq, bytes: board.snapshot())) { saved.set($0) }
      try #require(try saved.wait(timeoutSeconds: 10)?.get() != nil)
    }
    for i in 1...30 {
      var record = OpRecord(id: "o\(i)", client: "c", by: "s", resolved: .null, logged: [])
      if i == 1 { record.epoch = "e1" }
      _ = try c.append(room: "r", epoch: "e1", key: Array("c\u{1F}o\(i)".utf8), node: "n", payload: record.encoded())
      // Snapshots at 7, 14, 21, 28: at 28 the windows start after 18, whose base is 14.
      if i % 7 == 0 { try save(UInt64(i)) }
    }
    #expect(try c.baseSeqs(room: "r") == [14, 21, 28], "the bases before the base at 14 went")
    let kept = try c.entries(room: "r", after: 0, limit: 100).map(\.seq)
    #expect(kept.first == 15 && kept.last == 30, "the log is kept from the base on: \(kept)")
    for (asked, found) in [(UInt64(15), UInt64(14)), (20, 14), (21, 21), (29, 28)] {
      let answer = Answer<Result<RoomSnapshot?, RoomStoreError>>()
      storage.snapshot(room: "r", atOrBefore: asked) { answer.set($0) }
      #expect(try answer.wait(timeoutSeconds: 10)?.get()?.seq == found, "at or before \(asked)")
    }
    let none = Answer<Result<RoomSnapshot?, RoomStoreError>>()
    storage.snapshot(room: "r", atOrBefore: 13) { none.set($0) }
    #expect(try none.wait(timeoutSeconds: 10)?.get() == nil)
    try c.deleteBoard(room: "r")
    #expect(try c.baseSeqs(room: "r").isEmpty, "a deleted board takes its bases along")
  }
}
