import Foundation
import RedisWire
import ReorderCRDT
import ReorderRedis
import ReorderRooms

// Writes the binary seed corpora (`swift run SeedCorpus <corpus dir>`, run by hand when a format
// changes; the output is committed): the demo boards built through `CRDTRoomBoard` as the server
// builds them, then edited (moves, deletes, restores, assignments, a list moved and deleted).
// - `Op/`: runs of logged ops, each prefixed by its length byte (FuzzOp's input format).
// - `Snapshot/`: each board's snapshot, before and after the edits.
// - `RedisEntry/`: the XRANGE reply (RESP2) of each board's log in the cluster's stream: entry ids
//   `<seq>-1` and the fields `reorder_append` writes (`node`, `key`, `op`: an `OpRecord` whose
//   logged bytes are the op, the first one carrying the room's epoch), as far as 1,200 bytes hold
//   (short inputs run faster, and the first ops reach every decoding and applying step); the same
//   log with a gap, and with a truncated record; a short log with every kind of op; an empty reply.
let directory = CommandLine.arguments.dropFirst().first ?? "corpus"

func write(_ bytes: [UInt8], _ target: String, _ name: String) {
  let folder = directory + "/" + target
  try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
  FileManager.default.createFile(atPath: folder + "/" + name, contents: Data(bytes))
}

let edits: [String: [Intent]] = [
  "food": [
    .move(item: "pizza", list: "foods", after: "burger", before: nil), .assign(item: "pizza", target: "john"),
    .assign(item: "pasta", target: "john"), .delete(item: "burger"), .restore(item: "burger"),
    .set(item: "pizza", field: "price", value: .number(21.5)), .unassign(assignment: "_a10"),
    .createList(list: "drinks", title: "Drinks", layout: "list", after: "foods"),
    .insert(
      list: "drinks", after: nil, before: nil, fields: ["title": .string("Tea"), "hot": .bool(true)], item: "tea"),
    .move(item: "tea", list: "foods", after: nil, before: "pizza"), .moveList(list: "drinks", after: nil),
    .deleteList(list: "drinks"),
  ]
]

/// The XRANGE reply Redis sends for `entries` (fields in `reorder_append`'s order).
func xrange(_ entries: [ClusterLogEntry]) -> [UInt8] {
  RESP.bytes(
    of: .array(
      entries.map { entry in
        .array([
          .bulk(Array("\(entry.seq)-1".utf8)),
          .array([
            .bulk(Array("node".utf8)), .bulk(Array(entry.node.utf8)), .bulk(Array("key".utf8)), .bulk(entry.key),
            .bulk(Array("op".utf8)), .bulk(entry.op),
          ]),
        ])
      }))
}

/// The stream entries of `logged` as the cluster appends them (seq 1 first), as many as fit in
/// `budget` bytes of reply.
func streamEntries(_ room: String, _ logged: [([UInt8], String)], budget: Int = 1_200) -> [ClusterLogEntry] {
  var entries: [ClusterLogEntry] = []
  for (n, (bytes, kind)) in logged.enumerated() {
    var record = OpRecord(
      id: "op-\(n + 1)", client: "c-seed", by: "A-s1", resolved: .object([("kind", .string(kind))]), logged: bytes)
    if n == 0 { record.epoch = "e-\(room)-seed" }
    let key = Array(OpRecord.key(client: record.client, id: record.id).utf8)
    let entry = ClusterLogEntry(seq: UInt64(n + 1), node: "node-a:1", key: key, op: record.encoded())
    guard xrange(entries + [entry]).count <= budget else { break }
    entries.append(entry)
  }
  return entries
}

/// How many of `entries` a cluster room loaded empty applies (checked below: the full seeds must
/// reach the applied path, not only the refusal).
func appliedCount(_ entries: [ClusterLogEntry]) -> Int {
  let registry = RoomRegistry(
    limits: RoomLimits(), boards: CRDTRoomBoard.factory(replica: ReplicaID(7)), sessionPrefix: "s",
    node: RoomNode(node: "B"))
  for case .load(let load) in registry.opened(ConnectionHandle(1), room: "seed", now: 0) {
    _ = registry.loaded(room: "seed", result: Result { () throws(RoomStoreError) in try load.prepare(.empty) }, now: 0)
  }
  let hello = ##"{"type":"hello","room":"seed","client":"c","name":"Seed","color":"#000000"}"##
  _ = registry.received(ConnectionHandle(1), message: Array(hello.utf8), isBinary: false, now: 0)
  let shared = entries.map { AppendedEntry(seq: $0.seq, node: $0.node, key: $0.key, payload: $0.op) }
  _ = registry.logged(room: "seed", entries: shared, now: 0)
  return Int(registry.room("seed")?.seq ?? 0)
}

write(xrange([]), "RedisEntry", "empty.resp")
// A short log with every kind of op (the demo boards' first entries are list creations and
// inserts), made as the other seeds: seq n is made with the ids of seq n.
do {
  let kinds: [Intent] = [
    .createList(list: "todo", title: "To do", layout: "list", after: nil),
    .createList(list: "done", title: "Done", layout: "grid", after: "todo"),
    .insert(list: "todo", after: nil, before: nil, fields: ["title": .string("A")], item: "a"),
    .insert(list: "todo", after: "a", before: nil, fields: ["n": .number(2), "ok": .bool(false)], item: "b"),
    .move(item: "a", list: "done", after: nil, before: nil), .set(item: "b", field: "n", value: .number(3)),
    .assign(item: "a", target: "b"), .unassign(assignment: "_a7"), .delete(item: "b"), .restore(item: "b"),
    .moveList(list: "done", after: nil), .deleteList(list: "todo"),
  ]
  var board = CRDTRoomBoard()
  var logged: [([UInt8], String)] = []
  for (n, intent) in kinds.enumerated() {
    let result = try! board.perform(intent, ids: GeneratedIDs(seq: UInt64(n + 1)))
    logged.append((result.logged, intent.kind))
  }
  let entries = streamEntries("kinds", logged, budget: 2_400)
  precondition(
    entries.count == kinds.count && appliedCount(entries) == kinds.count,
    "the kinds log does not apply: \(entries.count) entries, \(appliedCount(entries)) applied")
  write(xrange(entries), "RedisEntry", "kinds.resp")
}
for (room, intents) in DemoBoards.all {
  var board = CRDTRoomBoard()
  var logged: [[UInt8]] = []
  var kinds: [String] = []
  var seq: UInt64 = 1
  for intent in intents + (edits[room] ?? []) {
    seq += 1
    if logged.count == intents.count { write(board.snapshot(), "Snapshot", "\(room)-built.bin") }
    guard let result = try? board.perform(intent, ids: GeneratedIDs(seq: seq)) else { continue }
    logged.append(result.logged)
    kinds.append(intent.kind)
  }
  let entries = streamEntries(room, Array(zip(logged, kinds)))
  precondition(appliedCount(entries) == entries.count, "the \(room) stream entries do not all apply")
  write(xrange(entries), "RedisEntry", "\(room).resp")
  write(xrange(entries.filter { $0.seq != 3 }), "RedisEntry", "\(room)-gap.resp")
  var truncated = entries.prefix(4).map { $0 }
  if truncated.count == 4 { truncated[3].op = Array(truncated[3].op.prefix(9)) }
  write(xrange(truncated), "RedisEntry", "\(room)-truncated.resp")
  write(board.snapshot(), "Snapshot", "\(room)-edited.bin")
  // Short runs (the fuzzer's default length limit is 4 KiB): the first ops, a middle slice, the last.
  let runs = [Array(logged.prefix(24)), Array(logged.dropFirst(logged.count / 2).prefix(24)), Array(logged.suffix(24))]
  for (n, run) in runs.enumerated() where !run.isEmpty {
    write(run.flatMap { op in op.count < 256 ? [UInt8(op.count)] + op : [] }, "Op", "\(room)-\(n).bin")
  }
}
write(Board(replica: ReplicaID(2)).encodedSnapshot(), "Snapshot", "empty.bin")
