import Foundation
import ReorderCRDT
import ReorderRooms

// Writes the binary seed corpora (`swift run SeedCorpus <corpus dir>`, run by hand when a format
// changes; the output is committed): the demo boards built through `CRDTRoomBoard` as the server
// builds them, then edited (moves, deletes, restores, assignments, a list moved and deleted).
// - `Op/`: runs of logged ops, each prefixed by its length byte (FuzzOp's input format).
// - `Snapshot/`: each board's snapshot, before and after the edits.
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

for (room, intents) in DemoBoards.all {
  var board = CRDTRoomBoard()
  var logged: [[UInt8]] = []
  var seq: UInt64 = 1
  for intent in intents + (edits[room] ?? []) {
    seq += 1
    if logged.count == intents.count { write(board.snapshot(), "Snapshot", "\(room)-built.bin") }
    guard let result = try? board.perform(intent, ids: GeneratedIDs(seq: seq)) else { continue }
    logged.append(result.logged)
  }
  write(board.snapshot(), "Snapshot", "\(room)-edited.bin")
  // Short runs (the fuzzer's default length limit is 4 KiB): the first ops, a middle slice, the last.
  let runs = [Array(logged.prefix(24)), Array(logged.dropFirst(logged.count / 2).prefix(24)), Array(logged.suffix(24))]
  for (n, run) in runs.enumerated() where !run.isEmpty {
    write(run.flatMap { op in op.count < 256 ? [UInt8(op.count)] + op : [] }, "Op", "\(room)-\(n).bin")
  }
}
write(Board(replica: ReplicaID(2)).encodedSnapshot(), "Snapshot", "empty.bin")
