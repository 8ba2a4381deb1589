import Foundation
import ReorderRooms
import ReorderTransport
import TestRandom
import TestSupport
import Testing

/// Three in-process nodes over one real `redis-server`, six clients, random moves between two
/// lists, and nodes restarted at random (their clients reconnect to another node and re-send
/// what was not acknowledged).
@Suite("Cluster mode: randomized, 3 nodes with restarts", .serialized)
struct ClusterRandomTests {
  final class Client {
    let name: String
    var node: Int
    var socket: RoomClient
    /// Op ids sent and not yet acknowledged, with their op.
    var pending: [(id: String, op: JSONValue)] = []
    var acknowledged: [String: UInt64] = [:]
    /// Op ids refused for good (a random anchor that is in the other list by then), with the code.
    var refused: [String: String] = [:]
    /// The board as this client sees it: its welcome, then every `applied` it received.
    var model: ClientModel

    init(name: String, node: Int, socket: RoomClient) {
      self.name = name
      self.node = node
      self.socket = socket
      model = ClientModel(welcome: socket.welcome)
    }

    /// Takes the welcome of a reconnection: a catch-up (`ops`, the missed `applied` frames) goes
    /// onto the board this client had; a full board replaces it.
    func catchUp() {
      guard case .array(let ops)? = socket.welcome["ops"] else {
        model = ClientModel(welcome: socket.welcome)
        return
      }
      caughtUp += 1
      for frame in ops where UInt64(frame["seq"]?.numberValue ?? 0) == model.seq + 1 { model.apply(frame) }
      #expect(model.seq == UInt64(socket.welcome["seq"]?.numberValue ?? 0))
    }

    /// Reconnections answered with a catch-up.
    var caughtUp = 0

    /// Applies the buffered `applied` frames to `model`, and moves its own ops among them into
    /// `acknowledged`.
    func takeAcks() {
      for frame in socket.buffer where frame["type"] == .string("applied") {
        guard let seq = frame["seq"]?.numberValue else { continue }
        // A connection's `applied` frames come in seq order, without gaps (a lower one is the
        // answer to a re-sent op).
        #expect(UInt64(seq) <= model.seq + 1, "\(name): seq \(seq) after \(model.seq)")
        if UInt64(seq) == model.seq + 1 { model.apply(frame) }
        guard let id = frame["id"]?.stringValue, pending.contains(where: { $0.id == id }) else { continue }
        acknowledged[id] = UInt64(seq)
      }
      // A refusal of the op itself (not `unavailable` or `rate_limited`, which are re-sent) ends
      // it, as the web client drops it.
      for frame in socket.buffer where frame["type"] == .string("rejected") {
        guard let id = frame["id"]?.stringValue, let code = frame["code"]?.stringValue,
          !Self.retryable.contains(code), pending.contains(where: { $0.id == id })
        else { continue }
        refused[id] = code
      }
      pending.removeAll { acknowledged[$0.id] != nil || refused[$0.id] != nil }
      socket.buffer.removeAll {
        $0["type"] == .string("applied")
          || ($0["type"] == .string("rejected") && !Self.retryable.contains($0["code"]?.stringValue ?? ""))
      }
    }

    static let retryable: Set<String> = ["unavailable", "rate_limited"]
  }

  @Test("600 random ops from 6 clients on 3 nodes with node restarts: every board equals a fresh welcome on every node")
  func randomizedWithRestarts() throws {
    let redis = try RedisServer()
    defer { redis.stop() }
    let url = "redis://127.0.0.1:\(redis.port)"
    var nodes: [TestServer?] = try (0..<3).map { _ in try TestServer { $0.redis = url } }
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let items = (0..<6).map { "i\($0)" }
    let seeder = try RoomClient.join(port: nodes[0]!.port, client: "seed", context: context)
    try ClusterPair.seed(seeder, items: items)
    seeder.op("seed:m", Ops.createList("m"))
    _ = try seeder.applied(id: "seed:m")
    seeder.close()
    let seeded = UInt64(items.count + 2)
    let clients = try (0..<6).map { k in
      Client(
        name: "q\(k)", node: k % 3,
        socket: try RoomClient.join(port: nodes[k % 3]!.port, client: "q\(k)", context: context))
    }
    var rng = SplitMix64(seed: 600)
    let total = 600
    for step in 0..<total {
      let c = clients[rng.below(clients.count)]
      let item = items[rng.below(items.count)]
      let anchor = items[rng.below(items.count)]
      let list = rng.below(3) == 0 ? "m" : "l"
      let op =
        anchor == item || list == "m" ? Ops.move(item, list: list) : Ops.move(item, list: list, after: anchor)
      let id = "\(c.name):\(step)"
      c.pending.append((id, op))
      c.socket.op(id, op)
      if step % 20 == 19 {
        // Let the nodes catch up a little, then maybe restart one.
        for c in clients {
          while c.socket.pump(timeout: 0.002) {}
          c.takeAcks()
        }
      }
      if step % 150 == 149 {
        let victim = rng.below(3)
        nodes[victim] = nil  // shutdown: its clients are closed with 1001
        nodes[victim] = try TestServer { $0.redis = url }
        for c in clients where c.node == victim {
          _ = c.socket.waitForClose(timeout: 10)
          c.takeAcks()
          c.node = (victim + 1 + rng.below(2)) % 3
          c.socket = try RoomClient.join(
            port: nodes[c.node]!.port, client: c.name, since: c.model.seq, epoch: c.socket.welcome["epoch"],
            context: context)
          c.catchUp()
          for op in c.pending { c.socket.op(op.id, op.op) }
        }
      }
    }
    // Everything acknowledged: re-send what is pending (an unavailable or lost answer) until then.
    for c in clients {
      let done = waitUntil(timeout: 30, pollMilliseconds: 50) {
        while c.socket.pump(timeout: 0.05) {}
        c.takeAcks()
        if !c.pending.isEmpty && c.socket.buffer.contains(where: { $0["type"] == .string("rejected") }) {
          c.socket.buffer.removeAll { $0["type"] == .string("rejected") }
          for op in c.pending { c.socket.op(op.id, op.op) }
        }
        return c.pending.isEmpty
      }
      #expect(done, "\(c.name): \(c.pending.count) ops never acknowledged")
    }
    let seqs = clients.flatMap { $0.acknowledged.values }
    let refused = clients.flatMap { $0.refused.values }
    #expect(seqs.count + refused.count == total)
    #expect(refused.allSatisfy { $0 == "invalid_anchor" }, "\(refused)")
    #expect(seqs.count >= total / 2, "most random moves apply (\(refused.count) refused)")
    #expect(Set(seqs) == Set((seeded + 1)...(seeded + UInt64(seqs.count))))
    let last = seeded + UInt64(seqs.count)
    // A fresh welcome on every node, once it has applied everything, is the same board.
    var boards: [ClientModel] = []
    for (i, node) in nodes.enumerated() {
      let fresh = try RoomClient.join(port: node!.port, client: "fresh\(i)", context: context)
      var model = ClientModel(welcome: fresh.welcome)
      _ = try fresh.follow(&model, until: last)
      boards.append(model)
    }
    for board in boards { #expect(board.lists == boards[0].lists) }
    for item in items { #expect(boards[0].occurrences(item) == 1) }
    #expect(clients.reduce(0) { $0 + $1.caughtUp } > 0, "some reconnection caught up with since/epoch")
    // Every client's own board, as it followed the room from its last welcome.
    for c in clients {
      _ = try c.socket.follow(&c.model, until: last)
      #expect(c.model.lists == boards[0].lists, "\(c.name)")
    }
  }
}
