import FuzzSupport
import ReorderCRDT

// The snapshot loader (`Board(snapshot:replica:)`, what a room load and a cluster node read from
// storage): never crashes and never breaks an invariant on any bytes; an accepted snapshot encodes
// to a snapshot that loads back to the same bytes; the loaded board answers queries and takes a
// local edit (a move of each list's first item to its end) with its invariants intact.
runFuzzer { bytes in
  let board: Board
  do throws(BoardError) {
    board = try Board(snapshot: bytes, replica: ReplicaID(9))
  } catch {
    return
  }
  board.checkInvariants()
  let snapshot = board.encodedSnapshot()
  guard let loaded = try? Board(snapshot: snapshot, replica: ReplicaID(9)) else {
    fuzzCheck(false, "the re-encoded snapshot does not load")
    return
  }
  fuzzCheck(loaded.encodedSnapshot() == snapshot, "the snapshot does not load back to itself")
  var edited = loaded
  for list in loaded.lists.prefix(4) {
    let items = loaded.items(in: list.id)
    guard let first = items.first else { continue }
    _ = try? edited.move(first, to: list.id, after: items.last, before: nil)
  }
  edited.checkInvariants()
}
