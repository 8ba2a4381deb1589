import Foundation
import TestRandom
import Testing

@testable import ReorderRooms

/// One simulated client: a stable client id, the node and connection it is on now, and the ops it
/// sent that were neither applied nor refused (re-sent after a reconnect or an `unavailable`).
struct FuzzClient {
  var client: String
  var node: Int
  var connection: ConnectionHandle
  var read = 0
  var nextOp = 0
  var pending: [(id: String, op: String)] = []
  var retry = false
}

/// A randomized cluster: 3 nodes sharing one fake log, 6 clients sending random ops (many
/// invalid, many concurrent), every append, reply, stream entry, read and presence message
/// delivered in a random order, nodes restarting (losing what was in flight) and clients moving
/// between nodes, log outages, compaction at agreed seqs, snapshots and trimming.
final class ClusterFuzz {
  var random: SplitMix64
  let cluster: ClusterHarness
  var clients: [FuzzClient] = []
  var nextConnection: UInt64 = 1
  var items: [String] = []
  var sent = 0

  init(seed: UInt64) {
    random = SplitMix64(seed: seed)
    var limits = RoomLimits()
    limits.snapshotEvery = 25
    limits.maxOpsPerSecond = 100_000
    // Compaction every 25 seqs, where the snapshots fall too: many boundaries per run.
    cluster = ClusterHarness(nodes: 3, limits: limits, compactEvery: 25)
    for k in 0..<6 {
      let node = k % 3
      clients.append(FuzzClient(client: "k\(k)", node: node, connection: connect(node, client: "k\(k)")))
    }
  }

  func connect(_ node: Int, client: String) -> ConnectionHandle {
    let id = nextConnection
    nextConnection += 1
    return cluster.join(node, id, client: client)
  }

  func pick<T>(_ values: [T]) -> T? { values.isEmpty ? nil : values[random.below(values.count)] }

  /// A random op against what `node` shows now (valid or not).
  func randomOp(node: Int, client k: Int) -> String {
    let board = cluster.board(node)
    let lists = (board?["lists"]?.arrayItems ?? []).map { list in
      (id: list["id"]!.stringValue!, items: (list["items"]?.arrayItems ?? []).map { $0["id"]!.stringValue! })
    }
    guard let list = pick(lists) else {
      return #"{"kind":"createList","list":"L\#(random.below(3))","title":"T","layout":"list"}"#
    }
    let visible = lists.flatMap(\.items)
    let anchor = pick(list.items).map { "\"\($0)\"" } ?? "null"
    switch random.below(100) {
    case 0..<40:
      guard let item = pick(visible) else { fallthrough }
      return #"{"kind":"move","item":"\#(item)","list":"\#(list.id)","after":\#(anchor)}"#
    case 40..<60:
      let id = "k\(k)-\(clients[k].nextOp)"
      items.append(id)
      return #"{"kind":"insert","item":"\#(id)","list":"\#(list.id)","after":\#(anchor),"fields":{"title":"t"}}"#
    case 60..<68: return #"{"kind":"delete","item":"\#(pick(visible) ?? "none")"}"#
    case 68..<76: return #"{"kind":"restore","item":"\#(pick(items) ?? "none")"}"#
    case 76..<84:
      return #"{"kind":"set","item":"\#(pick(visible) ?? "none")","field":"title","value":"v\#(random.below(9))"}"#
    case 84..<90:
      return #"{"kind":"assign","item":"\#(pick(visible) ?? "none")","target":"\#(pick(visible) ?? "none")"}"#
    case 90..<93:
      let assignment = pick(board?["assignments"]?.arrayItems ?? [])?["id"]?.stringValue ?? "none"
      return #"{"kind":"unassign","assignment":"\#(assignment)"}"#
    case 93..<96:
      return #"{"kind":"createList","list":"L\#(random.below(6))","title":"T","layout":"grid","after":null}"#
    case 96..<99:
      return #"{"kind":"moveList","list":"\#(list.id)","after":\#(pick(lists).map { "\"\($0.id)\"" } ?? "null")}"#
    default: return #"{"kind":"deleteList","list":"\#(list.id)"}"#
    }
  }

  /// Reads a client's new frames: applied and refused ops leave `pending`; `unavailable` ones stay.
  func readInbox(_ k: Int) {
    let node = cluster.nodes[clients[k].node]
    let frames = node.inbox[clients[k].connection] ?? []
    for frame in frames[clients[k].read...] {
      let id = frame["id"]?.stringValue
      switch frame["type"]?.stringValue {
      case "applied": clients[k].pending.removeAll { $0.id == id }
      case "rejected":
        if frame["code"] == .string("unavailable") {
          clients[k].retry = true
        } else {
          clients[k].pending.removeAll { $0.id == id }
        }
      default: break
      }
    }
    clients[k].read = frames.count
  }

  func resend(_ k: Int) {
    clients[k].retry = false
    for op in clients[k].pending { cluster.op(clients[k].node, clients[k].connection, op.id, op.op) }
  }

  /// The client's connection is gone (node restart, or it moves): it joins `node` and re-sends.
  func reconnect(_ k: Int, to node: Int) {
    clients[k].node = node
    clients[k].connection = connect(node, client: clients[k].client)
    clients[k].read = 0
    resend(k)
  }

  func step() {
    for k in clients.indices { readInbox(k) }
    let roll = random.below(100)
    let i = random.below(3)
    switch roll {
    case 0..<40:
      let k = random.below(clients.count)
      let id = "o\(clients[k].nextOp)"
      let op = randomOp(node: clients[k].node, client: k)
      clients[k].nextOp += 1
      clients[k].pending.append((id, op))
      cluster.op(clients[k].node, clients[k].connection, id, op)
      sent += 1
    case 40..<50: cluster.executeAppends(i, count: 1 + random.below(3))
    case 50..<60: cluster.deliverReplies(i, count: 1 + random.below(3))
    case 60..<72: cluster.deliverStream(i, limit: 1 + random.below(5))
    case 72..<73: cluster.answerReads(i)
    case 73..<74: cluster.readRoster(i)
    case 74..<75:
      // One entry out of the stream's order (a later one, or one already delivered): a gap, or
      // a duplicate.
      if cluster.nodes[i].following["r"] != nil, let last = cluster.log.rooms["r"]?.entries.last?.seq {
        let seq = UInt64(random.below(Int(last))) + 1
        if let entry = cluster.log.entries(room: "r", after: seq - 1, limit: 1).first, entry.seq == seq {
          cluster.perform(i, cluster.nodes[i].registry.logged(room: "r", entries: [entry], now: cluster.now))
        }
      }
    case 75..<80:
      let k = random.below(clients.count)
      let phase = pick(["start", "move", "end"])!
      let item = pick(items) ?? "none"
      cluster.send(clients[k].node, clients[k].connection, #"{"type":"drag","phase":"\#(phase)","item":"\#(item)"}"#)
    case 80..<84: cluster.deliverPresence(i)
    case 84..<89: cluster.tick(0.02)
    case 89..<92:
      for k in clients.indices where clients[k].retry { resend(k) }
    case 92..<94:
      cluster.restart(i)
      for k in clients.indices where clients[k].node == i { reconnect(k, to: random.below(3)) }
    case 94..<96:
      let k = random.below(clients.count)
      cluster.leave(clients[k].node, clients[k].connection)
      reconnect(k, to: random.below(3))
    case 96..<98: cluster.log.available.toggle()
    default: cluster.log.trim(room: "r", keep: 60)
    }
  }

  /// Runs until `ops` ops were sent, then heals the log and delivers everything.
  func run(ops: Int) {
    while sent < ops { step() }
    cluster.log.available = true
    for _ in 0..<20 {
      cluster.settle()
      for k in clients.indices { readInbox(k) }
      guard clients.contains(where: { !$0.pending.isEmpty }) else { break }
      for k in clients.indices { resend(k) }
    }
  }
}

@Suite("Cluster mode: randomized")
struct ClusterFuzzTests {
  /// `REORDER_CLUSTER_SEED=n` replays one seed; `REORDER_CLUSTER_SEEDS=n` runs n of them.
  static var seeds: [UInt64] {
    if let one = UInt64(ProcessInfo.processInfo.environment["REORDER_CLUSTER_SEED"] ?? "") { return [one] }
    let count = Int(ProcessInfo.processInfo.environment["REORDER_CLUSTER_SEEDS"] ?? "") ?? 3
    return (0..<UInt64(count)).map { $0 &* 7_919 &+ 1 }
  }

  @Test(
    "3 nodes, 6 clients, 600 random ops, random deliveries and restarts: every board equals a fresh load",
    arguments: seeds)
  func randomizedCluster(seed: UInt64) throws {
    let fuzz = ClusterFuzz(seed: seed)
    fuzz.run(ops: 600)
    let cluster = fuzz.cluster
    let fresh = try cluster.freshBoard()
    let freshModel = ClientBoardModel(board: fresh)
    #expect(fuzz.clients.allSatisfy { $0.pending.isEmpty })
    // Nothing here is a reason to close a connection (a dropped room would be one).
    let closes = cluster.nodes.flatMap { node in node.closed.map { "\(node.name) \($0.key): \($0.value.reason)" } }
    #expect(closes.isEmpty, "seed \(seed)")
    // A fresh welcome on every node (loading the room where nobody is left) shows the same board.
    for i in cluster.nodes.indices {
      let observer = cluster.join(i, 10_000 + UInt64(i), client: "observer")
      cluster.settle()
      let welcome = try #require(cluster.nodes[i].frames(observer, "welcome").last?["board"])
      let same = cluster.board(i) == fresh && welcome == fresh
      #expect(same, "node \(i), seed \(seed)")
    }
    for client in fuzz.clients {
      let frames = cluster.nodes[client.node].inbox[client.connection] ?? []
      let model = try #require(ClientBoardModel.from(frames: frames))
      #expect(model.sameBoard(as: freshModel), "client \(client.client), seed \(seed)")
      #expect(model.seq == cluster.log.rooms["r"]!.entries.last!.seq)
    }
    // Nothing waits in any room: a tick asks for no read.
    cluster.tick()
    #expect(cluster.nodes.allSatisfy { $0.reads.isEmpty }, "seed \(seed)")
    // Every op id is in the log at most once.
    let keys = cluster.log.rooms["r"]!.entries.compactMap { try? OpRecord(payload: $0.payload) }.map {
      OpRecord.key(client: $0.client, id: $0.id)
    }
    #expect(Set(keys).count == keys.count)
    #expect(keys.count > 50)
  }
}
