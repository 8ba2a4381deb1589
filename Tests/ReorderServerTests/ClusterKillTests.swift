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
  static func startNode(redis: String, arguments extra: [String] = []) throws -> (ChildProcess, Int) {
    let binary = try #require(ChildProcess.builtProduct("reorder"), "build the reorder product first (swift build)")
    let child = try ChildProcess(
      executable: binary,
      arguments: ["serve", "--port", "0", "--data", ":memory:", "--web", "", "--redis", redis] + extra)
    let line = try #require(child.waitForLine(timeout: 20) { $0.hasPrefix("Reorder is listening on ") })
    let port = try #require(
      line.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: CharacterSet(charactersIn: "/ "))) })
    return (child, port)
  }

  /// Reads `c`'s frames until every id in `ids` has its `applied`, the connection closed, or
  /// `timeout`: the seq of each one acknowledged.
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
      // A quiet moment is not the end (a loaded machine); a closed connection is.
      guard seqs.count < ids.count else { break }
      if !c.pump(timeout: min(1, max(0.01, deadline.timeIntervalSinceNow))) && c.closeEvent != nil { break }
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

  /// Reads `c`'s frames until each of `ids` has an answer (`applied` or `rejected`), or `timeout`:
  /// the answers, `applied` as its seq and `rejected` as its code.
  static func answers(_ c: RoomClient, ids: Set<String>, timeout: Double) -> [String: Result<UInt64, RejectedOp>] {
    var answers: [String: Result<UInt64, RejectedOp>] = [:]
    let deadline = Date(timeIntervalSinceNow: timeout)
    func take() {
      for frame in c.buffer {
        guard let id = frame["id"]?.stringValue, ids.contains(id) else { continue }
        if frame["type"] == .string("applied"), let seq = frame["seq"]?.numberValue {
          answers[id] = .success(UInt64(seq))
        } else if frame["type"] == .string("rejected") {
          answers[id] = .failure(RejectedOp(code: frame["code"]?.stringValue ?? ""))
        }
      }
      c.buffer.removeAll()
    }
    while answers.count < ids.count, deadline.timeIntervalSinceNow > 0 {
      take()
      guard answers.count < ids.count else { break }
      if !c.pump(timeout: min(1, max(0.01, deadline.timeIntervalSinceNow))) && c.closeEvent != nil { break }
    }
    take()
    return answers
  }

  struct RejectedOp: Error, Equatable {
    var code: String
  }

  @Test("SIGKILL of redis-server during ops, restarted on its directory: acknowledged ops stay, the rest re-sent once")
  func killRedisDuringOps() throws {
    let pair = try ClusterPair()
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let items = ["x", "y", "z"]
    let clients = [
      try RoomClient.join(port: pair.a.port, client: "r0", context: context),
      try RoomClient.join(port: pair.b.port, client: "r1", context: context),
    ]
    try ClusterPair.seed(clients[0], items: items)
    // Node B validates r1's moves against what it has applied: the seed must be there first.
    _ = try clients[1].applied(id: "seed:\(items.count)")
    let seeded = UInt64(items.count + 1)
    var rng = SplitMix64(seed: 7)
    let ops = clients.indices.map { k in
      (0..<80).map { n -> (id: String, op: JSONValue) in
        let item = items[rng.below(items.count)]
        let anchor = items[rng.below(items.count)]
        return ("r\(k):\(n)", anchor == item ? Ops.move(item, list: "l") : Ops.move(item, list: "l", after: anchor))
      }
    }
    var acknowledged: [String: UInt64] = [:]
    // 0..<40 with Redis up; 40..<70 sent as Redis is killed; 70..<80 sent while it is down.
    for (k, c) in clients.enumerated() { for op in ops[k].prefix(40) { c.op(op.id, op.op) } }
    for (k, c) in clients.enumerated() {
      let seqs = Self.acks(c, ids: Set(ops[k].prefix(40).map(\.id)))
      #expect(seqs.count == 40)
      acknowledged.merge(seqs) { a, _ in a }
    }
    for (k, c) in clients.enumerated() { for op in ops[k][40..<70] { c.op(op.id, op.op) } }
    pair.redis.kill()
    for (k, c) in clients.enumerated() {
      for (id, answer) in Self.answers(c, ids: Set(ops[k][40..<70].map(\.id)), timeout: 15) {
        if case .success(let seq) = answer { acknowledged[id] = seq }
      }
    }
    var rejectedDuringOutage = 0
    for (k, c) in clients.enumerated() {
      for op in ops[k][70..<80] { c.op(op.id, op.op) }
      let answers = Self.answers(c, ids: Set(ops[k][70..<80].map(\.id)), timeout: 15)
      rejectedDuringOutage += answers.values.filter { $0 == .failure(RejectedOp(code: "unavailable")) }.count
    }
    #expect(rejectedDuringOutage == 20)
    try pair.redis.start()
    // Every op re-sent until applied: those acknowledged keep their seq, the others get one each.
    for (k, c) in clients.enumerated() {
      var pending = ops[k]
      var final: [String: UInt64] = [:]
      let done = waitUntil(timeout: 30, pollMilliseconds: 100) {
        for op in pending { c.op(op.id, op.op) }
        for (id, answer) in Self.answers(c, ids: Set(pending.map(\.id)), timeout: 5) {
          if case .success(let seq) = answer { final[id] = seq }
        }
        pending.removeAll { final[$0.id] != nil }
        return pending.isEmpty
      }
      #expect(done, "client r\(k): \(pending.count) ops never applied")
      for (id, seq) in final {
        if let earlier = acknowledged[id] { #expect(seq == earlier, "\(id) acknowledged at \(earlier), now \(seq)") }
        acknowledged[id] = seq
      }
    }
    #expect(acknowledged.count == 160)
    #expect(Set(acknowledged.values) == Set((seeded + 1)...(seeded + 160)))
    let fresh = try RoomClient.join(port: pair.b.port, client: "fresh", context: context)
    var model = ClientModel(welcome: fresh.welcome)
    _ = try fresh.follow(&model, until: seeded + 160)
    #expect(model.seq == seeded + 160)
  }

  @Test("a SIGKILLed node's sessions leave the other node's rooms within the roster expiry, drags cancelled")
  func killedNodeSessionsLeave() throws {
    let redis = try RedisServer()
    defer { redis.stop() }
    let url = "redis://127.0.0.1:\(redis.port)"
    let (child, portA) = try Self.startNode(redis: url)
    defer { child.terminate() }
    let nodeB = try TestServer { $0.redis = url }
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let onB = try RoomClient.join(port: nodeB.port, client: "b", name: "Bob", context: context)
    try ClusterPair.seed(onB, items: ["x"])
    let onA = try RoomClient.join(port: portA, client: "a", name: "Ann", context: context)
    let session = onA.session
    // A drags; B sees the drag, so it knows A's session.
    var t = 0
    let seen = waitUntil(timeout: 15, pollMilliseconds: 1) {
      t += 1
      onA.send(#"{"type":"drag","phase":"move","item":"x","list":"l","x":0.5,"y":0.5,"t":\#(t)}"#)
      return
        (try? onB.next(
          timeout: 0.1,
          where: { frame in
            guard frame["type"] == .string("drags"), case .array(let updates)? = frame["updates"] else { return false }
            return updates.contains { $0["session"] == .string(session) }
          })) != nil
    }
    #expect(seen)
    child.terminate()
    // No leave was published: the roster entry expires (7 s) and B's next read (every 2 s) drops it.
    let left = try onB.next(timeout: 20) { frame in
      frame["type"] == .string("peer") && frame["event"] == .string("leave") && frame["session"] == .string(session)
    }
    #expect(left["name"] == .string("Ann"))
    // Its drag was in progress: B's members get it cancelled.
    let cancel = try onB.next(timeout: 5) { frame in
      guard frame["type"] == .string("drags"), case .array(let updates)? = frame["updates"] else { return false }
      return updates.contains { $0["session"] == .string(session) && $0["phase"] == .string("cancel") }
    }
    #expect(cancel["type"] == .string("drags"))
  }
}
