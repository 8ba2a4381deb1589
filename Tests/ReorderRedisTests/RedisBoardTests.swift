import ReorderRedis
import Testing

/// `reorder_board_put`, `reorder_board_delete`, the rooms' epochs, and what they change in
/// `reorder_append_ops` and `reorder_snapshot`.
@Suite("Redis whole boards: put, replace, delete", .serialized)
struct RedisBoardTests {
  static let ops: [(key: [UInt8], payload: [UInt8])] = [(bytes("put:1"), [1]), (bytes("put:2"), [2, 0])]

  @Test("A board is written as a room's history in one step: ops 1…n with their ids, meta and the snapshot")
  func putCreates() throws {
    let redis = try RedisFixture()
    let c = redis.connection
    #expect(try c.putBoard(room: "r", epoch: "e1", replace: false, node: "n", ops: Self.ops, snapshot: [7]) == .created)
    #expect(try c.meta(room: "r") == ClusterRoomMeta(epoch: "e1", seq: 2, snapshotSeq: 2, trimmedSeq: 0, replicated: 2))
    #expect(try c.snapshot(room: "r") == ClusterSnapshot(seq: 2, bytes: [7]))
    #expect(
      try c.entries(room: "r", after: 0) == [
        ClusterLogEntry(seq: 1, node: "n", key: bytes("put:1"), op: [1], epoch: "e1"),
        ClusterLogEntry(seq: 2, node: "n", key: bytes("put:2"), op: [2, 0], epoch: "e1"),
      ])
    // Its op ids are known, and the next op goes on at seq 3 in its epoch.
    #expect(try c.append(room: "r", epoch: "e1", key: bytes("put:2"), node: "m", payload: []) == .known(seq: 2))
    #expect(try c.append(room: "r", epoch: "e1", key: bytes("x"), node: "m", payload: []) == .applied(seq: 3))
  }

  @Test("A room with ops is kept unless replacing; replacing resets its log, ids, trim mark and snapshot")
  func putReplaces() throws {
    let redis = try RedisFixture()
    let c = redis.connection
    for i in 1...5 { _ = try c.append(room: "r", epoch: "old", key: bytes("k\(i)"), node: "n", payload: [UInt8(i)]) }
    _ = try c.trim(room: "r", keepFrom: 3)
    #expect(try c.putBoard(room: "r", epoch: "e2", replace: false, node: "n", ops: Self.ops, snapshot: [7]) == .exists)
    #expect(try c.meta(room: "r").epoch == "old")
    #expect(try c.putBoard(room: "r", epoch: "e2", replace: true, node: "n", ops: Self.ops, snapshot: [7]) == .replaced)
    #expect(try c.meta(room: "r") == ClusterRoomMeta(epoch: "e2", seq: 2, snapshotSeq: 2, trimmedSeq: 0, replicated: 2))
    #expect(try c.entries(room: "r", after: 0).map(\.seq) == [1, 2])
    // Ids of the old history are forgotten; an op of the old epoch is refused.
    #expect(try c.append(room: "r", epoch: "e2", key: bytes("k4"), node: "n", payload: []) == .applied(seq: 3))
    #expect(
      try c.append(room: "r", epoch: "old", key: bytes("z"), node: "n", payload: []) == .epochMismatch(current: "e2"))
    // A snapshot of the old history beyond the new one's seq is refused.
    #expect(try !c.putSnapshot(room: "r", seq: 5, bytes: [9]))
    #expect(try c.snapshot(room: "r")?.bytes == [7])
  }

  @Test("Deleting a board removes every key of its room; an op made with a history does not start a new one")
  func delete() throws {
    let redis = try RedisFixture()
    let c = redis.connection
    #expect(try !c.deleteBoard(room: "r"))
    _ = try c.putBoard(room: "r", epoch: "e1", replace: false, node: "n", ops: Self.ops, snapshot: [7])
    try c.putRoster(room: "r", node: "n", [ClusterRosterEntry(session: "s", peer: "{}")], expiresAt: Int64.max / 2)
    _ = try c.acquireLease(room: "r", node: "n", milliseconds: 10_000)
    #expect(try c.deleteBoard(room: "r"))
    for key in ClusterKeys(room: "r").all { #expect(try c.command("EXISTS", key).integer == 0, "\(key)") }
    #expect(try !c.deleteBoard(room: "r"))
    #expect(try c.epochs(rooms: ["r"]) == ["r": String?.none])
    let stale = ClusterAppend(room: "r", epoch: "e1", key: bytes("late"), node: "n", payload: [], creates: false)
    #expect(try c.append([stale]) == [.epochMismatch(current: "")])
    #expect(try c.meta(room: "r").epoch == nil)
    // An op made on an empty replica starts the room again.
    #expect(try c.append(room: "r", epoch: "e3", key: bytes("first"), node: "n", payload: []) == .applied(seq: 1))
    #expect(try c.epochs(rooms: ["r", "none"]) == ["r": "e3", "none": String?.none])
  }
}
