import Foundation
import ReorderRooms
import ReorderTransport
import TestRandom
import TestSupport
import Testing

/// A node killed with SIGKILL: the built `reorder` binary as a child process (stopped by PID),
/// beside an in-process node, over one real `redis-server`.
@Suite("Cluster mode: a node killed mid-run", .serialized)
struct ClusterKillTests {
  /// `reorder serve --redis URL` on a free port; the child and its port.
  static func startNode(redis: String) throws -> (ChildProcess, Int) {
    let binary = try #require(ChildProcess.builtProduct("reorder"), "build the reorder product first (swift build)")
    let child = try ChildProcess(
      executable: binary, arguments: ["serve", "--port", "0", "--data", ":memory:", "--web", "", "--redis", redis])
    let line = try #require(child.waitForLine(timeout: 20) { $0.hasPrefix("Reorder is listening on ") })
    let port = try #require(
      line.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: CharacterSet(charactersIn: "/ "))) })
    return (child, port)
  }

  /// Reads `c`'s frames until every id in `ids` has its `applied` (or the connection closed or
  /// went quiet): the seq of each one acknowledged.
  static func acks(_ c: RoomClient, ids: Set<String>, timeout: Double = 20) -> [String: UInt64] {
    var seqs: [String: UInt64] = [:]
    let deadline = Date(timeIntervalSinceNow: timeout)
    while seqs.count < ids.count, deadline.timeIntervalSinceNow > 0 {
      for frame in c.buffer where frame["type"] == .string("applied") {
        if let id = frame["id"]?.stringValue, ids.contains(id), let seq = frame["seq"]?.numberValue {
          seqs[id] = UInt64(seq)
        }
      }
      c.buffer.removeAll()
      guard seqs.count < ids.count, c.pump(timeout: min(2, max(0.01, deadline.timeIntervalSinceNow))) else { break }
    }
    for frame in c.buffer where frame["type"] == .string("applied") {
      if let id = frame["id"]?.stringValue, ids.contains(id), let seq = frame["seq"]?.numberValue {
        seqs[id] = UInt64(seq)
      }
    }
    return seqs
  }

  @Test("SIGKILL of a node during 500 ops: every acknowledged op stays, its clients catch up on the other node")
  func killNodeDuringOps() throws {
    let redis = try RedisServer()
    defer { redis.stop() }
    let url = "redis://127.0.0.1:\(redis.port)"
    let (child, portA) = try Self.startNode(redis: url)
    defer { child.terminate() }
    let nodeB = try TestServer { $0.redis = url }
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let items = ["x", "y", "z"]
    let seeder = try RoomClient.join(port: nodeB.port, client: "seed", context: context)
    try ClusterPair.seed(seeder, items: items)
    let seeded = UInt64(items.count + 1)
    let ports = [portA, portA, nodeB.port, nodeB.port]
    var clients = try ports.indices.map { try RoomClient.join(port: ports[$0], client: "k\($0)", context: context) }
    let perClient = 125
    var rng = SplitMix64(seed: 500)
    var ops: [[(id: String, op: JSONValue)]] = []
    for k in clients.indices {
      ops.append(
        (0..<perClient).map { n in
          let item = items[rng.below(items.count)]
          let anchor = items[rng.below(items.count)]
          return ("k\(k):\(n)", anchor == item ? Ops.move(item, list: "l") : Ops.move(item, list: "l", after: anchor))
        })
    }
    for (k, c) in clients.enumerated() { for op in ops[k].prefix(60) { c.op(op.id, op.op) } }
    _ = try clients[0].applied(id: "k0:10")
    // The rest goes out, and node A dies at once: some of its clients' ops are acknowledged,
    // some in flight (made, appended or not, reply lost), some never read.
    for (k, c) in clients.enumerated() { for op in ops[k].dropFirst(60) { c.op(op.id, op.op) } }
    child.terminate()
    var acknowledged: [String: UInt64] = [:]
    for (k, c) in clients.enumerated() {
      acknowledged.merge(Self.acks(c, ids: Set(ops[k].map(\.id)), timeout: k < 2 ? 5 : 30)) { a, _ in a }
    }
    #expect(clients[0].waitForClose(timeout: 10) != nil)
    #expect(clients[1].waitForClose(timeout: 10) != nil)
    // A's clients reconnect to B, catch up from where they were, and re-send all their ops.
    for k in 0..<2 {
      let before = clients[k].welcome
      clients[k] = try RoomClient.join(
        port: nodeB.port, client: "k\(k)", since: UInt64(before["seq"]?.numberValue ?? 0), epoch: before["epoch"],
        context: context)
      for op in ops[k] { clients[k].op(op.id, op.op) }
      let after = Self.acks(clients[k], ids: Set(ops[k].map(\.id)), timeout: 30)
      #expect(after.count == perClient)
      for (id, seq) in after {
        if let earlier = acknowledged[id] { #expect(seq == earlier, "\(id) acknowledged at \(earlier), now \(seq)") }
        acknowledged[id] = seq
      }
    }
    // Every op applied exactly once: 500 distinct seqs after the seed, nothing lost, no duplicate.
    #expect(acknowledged.count == 4 * perClient)
    #expect(Set(acknowledged.values) == Set((seeded + 1)...(seeded + UInt64(4 * perClient))))
    let fresh = try RoomClient.join(port: nodeB.port, client: "fresh", context: context)
    #expect(fresh.welcome["seq"]?.numberValue == Double(seeded + UInt64(4 * perClient)))
    #expect(Set(boardItems(fresh.welcome["board"], list: "l")) == Set(items))
  }
}
