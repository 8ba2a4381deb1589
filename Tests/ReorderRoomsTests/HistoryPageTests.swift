import Testing

@testable import ReorderRooms

/// The pure parts of the history: records that carry who and when, and pages cut from the kept log.
@Suite("History pages and stamped records")
struct HistoryPageTests {
  func entries(_ seqs: [UInt64]) -> [HistoryEntry] {
    seqs.map { HistoryEntry(seq: $0, op: .object([("kind", .string("move"))]), stamp: OpStamp(actor: nil, at: nil)) }
  }

  @Test(
    "a record keeps its actor and time; one stored before they were kept reads as unknown; the fast paths ignore them")
  func stampedRecords() throws {
    var record = OpRecord(
      id: "c:1", client: "c", by: "s1", resolved: .object([("kind", .string("move"))]), logged: [9],
      actor: OpActor(sub: "u1", name: "Ana"), at: 1_765_000_000_123)
    record.epoch = "e1"
    let read = try OpRecord(payload: record.encoded())
    #expect(read == record)
    #expect(try OpRecord.key(payload: record.encoded()) == OpRecord.key(client: "c", id: "c:1"))
    #expect(try OpRecord.appliedFrame(payload: record.encoded(), seq: 4) == record.applied(seq: 4))
    let old = OpRecord(id: "c:2", client: "c", by: "s1", resolved: .object([]), logged: [])
    let readOld = try OpRecord(payload: old.encoded())
    #expect(readOld.actor == nil && readOld.at == nil)
    let api = try OpRecord(
      payload: OpRecord(id: "p", client: "api", by: "api", resolved: .null, logged: [], actor: .api).encoded())
    #expect(api.actor == .api)
    #expect(OpActor.api.json == .object([("sub", .null), ("name", .null), ("via", .string("api"))]))
  }

  @Test("a page is the newest ops below before, newest first; next names the page after it")
  func pages() {
    let kept = entries(Array(1...10))
    #expect(
      HistoryPage.read(kept: Array(kept.suffix(4)), before: 11, limit: 3) == .entries(entries([10, 9, 8]), next: 8))
    #expect(
      HistoryPage.read(kept: Array(kept.prefix(3)), before: 4, limit: 3) == .entries(entries([3, 2, 1]), next: nil))
    #expect(HistoryPage.read(kept: [], before: 1, limit: 3) == .entries([], next: nil))
    // Beyond the last op: the page starts at the newest kept.
    #expect(
      HistoryPage.read(kept: Array(kept.suffix(3)), before: 500, limit: 2) == .entries(entries([10, 9]), next: 9))
  }

  @Test("op 1 kept apart from the trimmed ops after it: the page stops at the gap; op 1 alone may be a gone page")
  func trimmedLog() {
    let page = HistoryPage.read(kept: entries([1, 2004, 2005]), before: 2006, limit: 5)
    #expect(page == .entries(entries([2005, 2004]), next: nil))
    let alone = HistoryPage.read(kept: entries([1]), before: 100, limit: 5)
    #expect(alone.isOnlyFirstOp(before: 100))
    #expect(!HistoryPage.read(kept: entries([1]), before: 2, limit: 5).isOnlyFirstOp(before: 2))
  }

  @Test("the board at a seq: the ops after the base must reach it without a gap")
  func boardAtShape() {
    let log = (1...5).map { LogEntry(seq: $0, payload: []) }
    #expect(RoomLoad.shape(seq: 5, from: 0, read: log) == nil)
    #expect(RoomLoad.shape(seq: 7, from: 0, read: log) == .beyond(last: 5))
    #expect(RoomLoad.shape(seq: 3, from: 0, read: [log[0], LogEntry(seq: 2004, payload: [])]) == .gone)
    #expect(RoomLoad.shape(seq: 3, from: 2, read: [log[2]]) == nil)
    #expect(RoomLoad.shape(seq: 2, from: 2, read: []) == nil, "the base's own seq")
  }

  @Test("merged actors are distinct, in first-seen order, at most maxListed")
  func mergedActors() {
    var list: [OpActor] = []
    OpActor.merge([OpActor(name: "A"), .api, OpActor(name: "A")], into: &list)
    #expect(list == [OpActor(name: "A"), .api])
    OpActor.merge((0..<500).map { OpActor(name: "n\($0)") }, into: &list)
    #expect(list.count == OpActor.maxListed)
  }
}
