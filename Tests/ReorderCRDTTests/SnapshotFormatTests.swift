import ReorderCRDT
import Testing

/// The snapshot format is what databases hold: a snapshot written by an earlier build must load
/// into the same state. The bytes below are format version 2 as commit 0c14310 writes it, and
/// must keep loading.
@Suite("Snapshot format")
struct SnapshotFormatTests {
  /// Replica 1: lists L1 and L2; X, Y, Z, W in L1 (two moves, one across lists, leave tombstones),
  /// Y deleted, fields set, Z assigned onto X, one assignment removed; plus an op from replica 2
  /// buffered for an item that never arrived.
  static func board() throws -> Board {
    var b = Board(replica: ReplicaID(1))
    _ = try b.createList("L1", title: "One", layout: .list, after: nil)
    _ = try b.createList("L2", title: "Two", layout: .grid, after: "L1")
    var previous: ItemID? = nil
    for name in ["X", "Y", "Z", "W"] {
      previous = try b.insert(
        list: "L1", after: previous, before: nil, fields: ["n": .string(name)], item: ItemID(name)
      )
      .item
    }
    _ = try b.move("X", to: "L1", after: "Z", before: nil)
    _ = try b.move("W", to: "L2", after: nil, before: nil)
    _ = try b.insert(list: "L2", after: "W", before: nil, fields: ["price": .number(12.5)])
    _ = try b.delete("Y")
    _ = try b.set("Z", field: "price", value: .number(4))
    _ = try b.assign("Z", to: "X")
    let removed = try b.assign("W", to: "X")
    if case .assign(let id, _, _) = removed.action { _ = try b.unassign(id) }
    b.apply(Op(id: OpID(replica: ReplicaID(2), counter: 40), action: .delete(item: "ghost")))
    return b
  }

  static let version2: [UInt8] = [
    0x52, 0x4F, 0x52, 0x44, 0x02, 0x0E, 0x01, 0x01, 0x02, 0x01, 0x6E, 0x05, 0x70, 0x72, 0x69, 0x63, 0x65, 0x03, 0x02,
    0x04, 0x01, 0x04, 0x02, 0x05,
    0x04, 0x03, 0x04, 0x04, 0x04, 0x05, 0x01, 0x07, 0x06, 0x06, 0x03, 0x02, 0x04, 0x08, 0x04, 0x09, 0x02, 0x01, 0x02,
    0x4C, 0x31, 0x01, 0x03, 0x4F,
    0x6E, 0x65, 0x00, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x02, 0x4C, 0x32, 0x02, 0x03, 0x54, 0x77, 0x6F, 0x01,
    0x01, 0x02, 0x02, 0x01, 0x01,
    0x02, 0x05, 0x01, 0x01, 0x58, 0x00, 0x04, 0x01, 0x01, 0x03, 0x01, 0x00, 0x00, 0x01, 0x58, 0x01, 0x03, 0x01, 0x01,
    0x59, 0x00, 0x02, 0x00, 0x01,
    0x0A, 0x01, 0x00, 0x00, 0x01, 0x59, 0x01, 0x04, 0x01, 0x01, 0x5A, 0x00, 0x03, 0x01, 0x01, 0x05, 0x02, 0x00, 0x00,
    0x01, 0x5A, 0x01, 0x05, 0x01,
    0x04, 0x08, 0x01, 0x0B, 0x01, 0x01, 0x57, 0x01, 0x01, 0x01, 0x01, 0x06, 0x01, 0x00, 0x00, 0x01, 0x57, 0x01, 0x06,
    0x00, 0x00, 0x09, 0x01, 0x02,
    0x01, 0x00, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x29, 0x40, 0x00, 0x02, 0x00, 0x00, 0x0C, 0x02,
    0x00, 0x00, 0x00, 0x00, 0x00,
    0x0D, 0x03, 0x00, 0x00, 0x01, 0x01, 0x00, 0x05, 0x0A, 0x01, 0x01, 0x01, 0x01, 0x01, 0x0A, 0x12, 0x02, 0x28, 0x02,
    0x05, 0x67, 0x68, 0x6F, 0x73,
    0x74,
  ]

  @Test("A version 2 snapshot from before the faster loader loads into the same state")
  func oldSnapshotLoads() throws {
    let expected = try SnapshotFormatTests.board()
    var loaded = try Board(snapshot: SnapshotFormatTests.version2, replica: ReplicaID(1))
    loaded.checkInvariants()
    #expect(fingerprint(loaded) == fingerprint(expected))
    #expect(names(loaded) == "Z X")
    #expect(loaded.items(in: "L2").count == 2)
    #expect(loaded.lamport == expected.lamport)
    #expect(loaded.pendingCount == 1)
    // It still merges: the missing item arrives and releases the buffered delete.
    let ghost = Op(
      id: OpID(replica: ReplicaID(2), counter: 39),
      action: .insert(item: "ghost", list: "L1", anchor: Anchor(parent: nil, side: .right), fields: [:]))
    let applied = loaded.apply(ghost)
    #expect(applied)
    #expect(loaded.pendingCount == 0)
    #expect(loaded.item("ghost")?.alive == false)
    loaded.checkInvariants()
  }

  @Test("The writer still produces exactly the version 2 bytes")
  func writerUnchanged() throws {
    #expect(try SnapshotFormatTests.board().encodedSnapshot() == SnapshotFormatTests.version2)
  }
}
