import FuzzSupport
import ReorderCRDT

// The CRDT op decoder (`Op(encoded:)`) and the board that applies what it accepts. The input is a
// run of ops, each one length byte then that many bytes (how a log or stream hands them over).
// Every op: never crashes; an accepted op re-encodes to bytes that decode to the same op and that
// encoding is a fixed point. Every accepted op is applied to one board (remote delivery, in any
// order, dependencies possibly missing), whose invariants hold at the end and whose snapshot loads
// back to the same snapshot.
//
// The board is a pure value, so the same accepted ops in the same order always build the same
// board: a run whose accepted ops (their encodings) were already applied and checked in this
// process is not applied and checked again (most mutations change a length byte or a refused
// chunk, not the ops that get through). The decoding checks run for every input.
var checkedRuns = Set<[UInt8]>()
let maxCheckedRuns = 20_000  // then forgotten at once: a bound on memory, not a cache policy

runFuzzer { bytes in
  var ops: [Op] = []
  var run: [UInt8] = []
  var offset = 0
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
    ops.append(op)
    // Each op's encoding with its length: the run of accepted ops, unambiguously.
    run.append(contentsOf: [UInt8(truncatingIfNeeded: encoded.count >> 8), UInt8(truncatingIfNeeded: encoded.count)])
    run.append(contentsOf: encoded)
  }
  guard !ops.isEmpty, !checkedRuns.contains(run) else { return }
  if checkedRuns.count >= maxCheckedRuns { checkedRuns.removeAll() }
  checkedRuns.insert(run)

  var board = Board(replica: ReplicaID(7))
  for op in ops { board.apply(op) }
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
