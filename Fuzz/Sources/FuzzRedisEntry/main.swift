import FuzzSupport
import RedisWire
import ReorderBasics
import ReorderRooms

@testable import ReorderCluster
@testable import ReorderRedis

// The Redis stream entries: the bytes are one RESP2 reply as Redis sends it for `XRANGE` of a
// room's log (`*n` entries, each `*2` of the id `<seq>-1` and the fields `node`, `key`, `op`);
// the entries' layout is what `XREAD` returns per stream too. What hiredis would not read as one
// reply is skipped (`RESP.reply`); the rest goes through the node's own decoding
// (`ClusterReplies.entries`), the tail's mapping (`AppendedEntry.init`) and
// `RoomRegistry.logged`, into a cluster-mode room loaded empty with one welcomed member.
// Contract: never crashes;
// - a reply that is not a list of entries is refused with `unexpectedReply` naming the command;
// - decoded entries, written back as Redis would send them, decode to the same entries;
// - every `op` field that reads as an `OpRecord` re-encodes to a payload that reads the same;
// - the room then either applies the entries 1...k present (k the longest run from seq 1): the
//   member gets exactly their `applied` frames, in seq order, with each one's id and `by`, the
//   room's seq is k, and a later entry past a gap asks for the gap (`readRange`); or, when one
//   of them cannot be read or applied, it refuses the log: an error line "shared log entry
//   unreadable" with the error, the member closed 1011 "shared log corrupt", no `applied` sent.
Log.configure(level: .error, format: .text)  // the rooms' info lines would fill the fuzzer's log
let rooms = FuzzRooms(node: RoomNode(node: "B"))
let member = ConnectionHandle(1)
rooms.open(member, room: "food")
rooms.receive(
  member,
  Array(##"{"type":"hello","room":"food","client":"c-fuzz","name":"Fuzz","color":"#e91e63"}"##.utf8))
fuzzCheck(rooms.types(member) == ["welcome"], "the member was not welcomed: \(rooms.types(member))")
fuzzCheck(rooms.registry.room("food")?.seq == 0, "the room does not start empty")
rooms.save()

/// The XRANGE reply Redis sends for `entries` (fields in `reorder_append`'s order).
func reply(_ entries: [ClusterLogEntry]) -> RedisReply {
  .array(
    entries.map { entry in
      .array([
        .bulk(Array("\(entry.seq)-1".utf8)),
        .array([
          .bulk(Array("node".utf8)), .bulk(Array(entry.node.utf8)), .bulk(Array("key".utf8)), .bulk(entry.key),
          .bulk(Array("op".utf8)), .bulk(entry.op),
        ]),
      ])
    })
}

runFuzzer { bytes in
  guard let sent = RESP.reply(from: bytes) else { return }
  let entries: [ClusterLogEntry]
  do throws(RedisError) {
    entries = try ClusterReplies.entries(sent, command: "XRANGE")
  } catch {
    guard case .unexpectedReply(let command, let shape) = error else {
      fuzzCheck(false, "refused with \(error)")
      return
    }
    fuzzCheck(command == "XRANGE" && !shape.isEmpty, "a refusal without its command or shape: \(error)")
    return
  }

  let written = RESP.bytes(of: reply(entries))
  guard let back = RESP.reply(from: written), let again = try? ClusterReplies.entries(back, command: "XRANGE") else {
    fuzzCheck(false, "the entries written back are refused")
    return
  }
  fuzzCheck(again == entries, "decode(write(entries)) != entries")

  var records: [UInt64: [OpRecord]] = [:]
  for entry in entries {
    guard let record = try? OpRecord(payload: entry.op) else { continue }
    fuzzCheck((try? OpRecord(payload: record.encoded())) == record, "an OpRecord does not re-encode to itself")
    records[entry.seq, default: []].append(record)
  }

  rooms.restore()
  rooms.perform(rooms.registry.logged(room: "food", entries: entries.map { AppendedEntry($0) }, now: rooms.now))
  let seqs = Set(entries.map(\.seq))
  var run: UInt64 = 0
  while seqs.contains(run + 1) { run += 1 }
  let applied = (rooms.frames[member] ?? []).filter { $0["type"]?.stringValue == "applied" }

  if let close = rooms.closes[member] {
    fuzzCheck(run > 0, "the room refused the log with nothing to apply")
    fuzzCheck(close.code == CloseCode.internalError && close.reason == "shared log corrupt", "closed \(close)")
    fuzzCheck(applied.isEmpty, "applied sent from a log refused")
    let line = rooms.logs.first { $0.event == "shared log entry unreadable" }
    fuzzCheck(
      line?.level == .error && line?.fields.contains { $0.0 == "error" && !$0.1.isEmpty } == true,
      "a refused log without its error line")
    fuzzCheck(rooms.registry.room("food") == nil, "a refused log left its room loaded")
    return
  }
  fuzzCheck(rooms.registry.room("food")?.seq == run, "the room's seq is not the run of entries from 1")
  fuzzCheck(applied.count == Int(run), "\(applied.count) applied for a run of \(run)")
  for (index, frame) in applied.enumerated() {
    let seq = UInt64(index + 1)
    fuzzCheck(frame["seq"]?.numberValue == Double(seq), "applied out of seq order")
    let candidates = records[seq] ?? []
    fuzzCheck(
      candidates.contains { frame["id"]?.stringValue == $0.id && frame["by"]?.stringValue == $0.by },
      "an applied frame is not the record logged at its seq")
  }
  if let next = seqs.filter({ $0 > run + 1 }).min() {
    fuzzCheck(
      rooms.logWork.contains { work in
        if case .readRange(let room, let after, let through) = work {
          return room == "food" && after == run && through == next - 1
        }
        return false
      }, "no read of the gap before seq \(next)")
  }
}
