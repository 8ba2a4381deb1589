import ReorderRooms
import Testing

/// A room compacts its board at agreed seqs (every `compactEvery`) and snapshots there, so
/// snapshots stay the size of the board's content however many moves it has seen, and a reload
/// (which compacts at the same seqs) rebuilds the same board.
@Suite("Snapshots are compacted")
struct SnapshotCompactionTests {
  /// A room of 20 items in list `l`, snapshotted every `every` ops, compacted every 500, after
  /// `moves` moves.
  func movedRoom(moves: Int, every: Int) -> (RoomsHarness, ConnectionHandle) {
    var limits = RoomLimits()
    limits.snapshotEvery = every
    limits.maxOpsPerSecond = 1_000_000
    let h = RoomsHarness(limits: limits, compactEvery: 500)
    let a = h.join(1)
    h.seed(a, ids: (0..<20).map { "x\($0)" })
    move(h, a, from: 0, count: moves)
    return (h, a)
  }

  /// `count` moves through `a`, numbered from `from`.
  func move(_ h: RoomsHarness, _ a: ConnectionHandle, from: Int, count: Int) {
    for n in from..<(from + count) {
      let op = #"{"kind":"move","item":"x\#(n % 20)","list":"l","after":"x\#((n * 7 + 3) % 20)"}"#
      h.send(a, #"{"type":"op","id":"m\#(n)","op":\#(op)}"#)
    }
    _ = h.take(a)
  }

  @Test("Snapshots after 3,000 moves are no bigger than the first one, plus the larger ids")
  func snapshotsStayTheSizeOfTheContent() {
    let (h, _) = movedRoom(moves: 3_000, every: 500)
    #expect(h.snapshots.map(\.seq) == [500, 1_000, 1_500, 2_000, 2_500, 3_000])
    let first = h.snapshotSizes[0]
    let last = h.snapshotSizes.last!
    #expect(last <= first + 20 * 2, "\(first) B at first, \(last) B after 3,000 moves")
  }

  @Test("A room reloaded from a compacted snapshot plus the ops after it shows the same board and goes on")
  func reloadAfterCompaction() {
    let (h, _) = movedRoom(moves: 1_050, every: 100)
    let live = h.registry.room("r")!.boardJSON()
    h.restart()
    let b = h.join(2)
    #expect(h.registry.room("r")!.boardJSON() == live)
    #expect(h.registry.room("r")!.seq == 1 + 20 + 1_050)
    // Moves made on the reloaded (compacted) board land where the same moves on the live one did.
    let (twin, _) = movedRoom(moves: 1_350, every: 100)
    move(h, b, from: 1_050, count: 300)
    #expect(h.registry.room("r")!.boardJSON() == twin.registry.room("r")!.boardJSON())
  }

  @Test("The interval a large snapshot asks for is capped at the windows the store keeps")
  func intervalIsCappedAtTheWindows() {
    var limits = RoomLimits()
    limits.snapshotEvery = 3
    limits.rememberedOpIDs = 8
    limits.maxCatchUpOps = 5
    limits.maxOpsPerSecond = 1_000_000
    let h = RoomsHarness(limits: limits)
    let a = h.join(1)
    let title = String(repeating: "t", count: 300)
    h.send(a, #"{"type":"op","id":"c","op":{"kind":"createList","list":"l","title":"L","layout":"list"}}"#)
    for i in 0..<60 {
      let fields = #"{"title":"\#(title)"}"#
      h.send(a, #"{"type":"op","id":"i\#(i)","op":{"kind":"insert","list":"l","item":"x\#(i)","fields":\#(fields)}}"#)
    }
    let seqs = h.snapshots.map { Int($0.seq) }
    #expect(h.snapshotSizes.last! / RoomLimits.snapshotBytesPerOp > 8, "the board is large for these windows")
    for k in 1..<seqs.count {
      let expected = max(3, min(h.snapshotSizes[k - 1] / RoomLimits.snapshotBytesPerOp, 8))
      #expect(seqs[k] - seqs[k - 1] == expected)
    }
    #expect(seqs.last! - seqs[seqs.count - 2] == 8)
  }
}
