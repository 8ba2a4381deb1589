import FuzzSupport
import ReorderCRDT

// The CRDT op decoder (`Op(encoded:)`) and the board that applies what it accepts. The input is a
// run of ops, each one length byte then that many bytes (how a log or stream hands them over).
// Every op: never crashes; an accepted op re-encodes to bytes that decode to the same op and that
// encoding is a fixed point. Every accepted op is applied to one board (remote delivery, in any
// order, dependencies possibly missing), whose invariants hold at the end and whose snapshot loads
// back to the same snapshot.
runFuzzer { bytes in
  var board = Board(replica: ReplicaID(7))
  var offset = 0
  var applied = 0
  while offset < bytes.count {
    let length = Int(bytes[offset])
    offset += 1
    let chunk = Array(bytes[offset..<min(bytes.count, offset + length)])
    offset += length
    let op: Op
    do throws(BoardError) {
      op = try Op(encoded: chunk)
    } catch {
      continue
    }
    let encoded = op.encoded()
    guard let again = try? Op(encoded: encoded) else {
      fuzzCheck(false, "the re-encoded op is refused")
      return
    }
    fuzzCheck(again == op, "decode(encode(op)) != op")
    fuzzCheck(again.encoded() == encoded, "encode(decode(encode(op))) != encode(op)")
    board.apply(op)
    applied += 1
  }
  guard applied > 0 else { return }
  // Once at the end (it is O(board) and dominated the run): a broken invariant stays broken.
  board.checkInvariants()
  let snapshot = board.encodedSnapshot()
  guard let loaded = try? Board(snapshot: snapshot, replica: ReplicaID(7)) else {
    fuzzCheck(false, "the snapshot of a board built from decoded ops does not load")
    return
  }
  loaded.checkInvariants()
  fuzzCheck(loaded.encodedSnapshot() == snapshot, "the snapshot does not load back to itself")
}
