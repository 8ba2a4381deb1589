import Foundation
import ReorderRooms
import ReorderTransport
import TestRandom
import TestSupport
import Testing

/// deploy/haproxy.cfg as shipped (only its listen address and node ports filled in): a real
/// `haproxy` in front of two `reorder serve --redis` nodes (child processes, stopped by PID) over
/// one real `redis-server`.
@Suite("Room affinity behind haproxy (deploy/haproxy.cfg)", .serialized)
struct RoomAffinityTests {
  static let deploy = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("deploy")

  /// deploy/haproxy.cfg listening on 127.0.0.1:`port` without TLS, its two servers on `nodes`.
  static func configuration(port: Int, nodes: [Int]) throws -> String {
    var lines = try String(contentsOf: deploy.appendingPathComponent("haproxy.cfg"), encoding: .utf8)
      .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let bind = try #require(lines.firstIndex { $0.hasPrefix("  bind ") }, "haproxy.cfg has no bind line")
    lines[bind] = "  bind 127.0.0.1:\(port)"
    let servers = lines.indices.filter { lines[$0].hasPrefix("  server ") }
    try #require(servers.count == nodes.count, "haproxy.cfg lists \(servers.count) servers")
    for (index, node) in zip(servers, nodes) {
      let name = lines[index].split(separator: " ")[1]
      lines[index] = "  server \(name) 127.0.0.1:\(node)"
    }
    return lines.joined(separator: "\n")
  }

  /// The node id a child logged at start (`server started … node=<id> …`).
  static func node(of child: ChildProcess) -> String? {
    for line in child.output {
      guard line.contains("server started"),
        let field = line.split(separator: " ").first(where: { $0.hasPrefix("node=") })
      else { continue }
      return String(field.dropFirst("node=".count))
    }
    return nil
  }

  /// The node a session id names: `s<node>.<boot>-<n>`.
  static func node(ofSession session: String) -> String {
    String(session.dropFirst().prefix { $0 != "." })
  }

  /// Joins `room` through the proxy, retrying while the proxy has no node for it (up to `timeout`).
  static func joinThroughProxy(
    port: Int, room: String, client: String, since: UInt64? = nil, epoch: JSONValue? = nil,
    context: WebSocketClientContext, timeout: Double = 20
  ) throws -> RoomClient {
    var joined: RoomClient?
    var lastError: (any Error)?
    waitUntil(timeout: timeout, pollMilliseconds: 200) {
      do {
        joined = try RoomClient.join(
          port: port, room: room, client: client, since: since, epoch: epoch, context: context)
      } catch {
        lastError = error
      }
      return joined != nil
    }
    if let joined { return joined }
    throw try #require(lastError, "no join through the proxy within \(timeout) s")
  }

  @Test(
    "every member of a room lands on one node; a killed node's clients reconnect through haproxy to the other and catch up, nothing acked lost"
  )
  func affinityAndFailover() throws {
    let haproxy = try #require(
      ["/usr/sbin/haproxy", "/usr/bin/haproxy"].first { FileManager.default.isExecutableFile(atPath: $0) },
      "install haproxy (scripts/install-deps.sh test)")
    let redis = try RedisServer()
    defer { redis.stop() }
    let url = "redis://127.0.0.1:\(redis.port)"
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reorder-haproxy-\(UUID())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let keys = directory.appendingPathComponent("keys")
    try "affinity-key-0123456789abcdef0123456789\n".write(to: keys, atomically: true, encoding: .utf8)
    let api = ["--api-key-file", keys.path]
    var nodes = try [
      ClusterKillTests.startNode(redis: url, arguments: api), ClusterKillTests.startNode(redis: url, arguments: api),
    ]
    defer { for (child, _) in nodes { child.terminate() } }
    let proxyPort = freePort()
    let file = directory.appendingPathComponent("haproxy.cfg")
    try Self.configuration(port: proxyPort, nodes: nodes.map(\.1)).write(to: file, atomically: true, encoding: .utf8)
    // -n: the shipped maxconn needs more descriptors than a test process may open.
    let proxy = try ChildProcess(executable: haproxy, arguments: ["-db", "-n", "2000", "-f", file.path])
    defer { proxy.terminate() }
    waitUntil(timeout: 20, pollMilliseconds: 200) {
      (try? httpGet(port: proxyPort, rawPath: "/healthz"))?.status == 200
    }
    let context = try WebSocketClientContext()
    defer { context.shutdown() }

    // Affinity: each of 12 rooms, made by an API call through the proxy, has that call and all its
    // members on one node; the rooms use both nodes.
    let board = Array(#"{"lists":[{"id":"l","title":"L","layout":"list"}]}"#.utf8)
    var nodeOfRoom: [String: String] = [:]
    for r in 0..<12 {
      let room = "affinity\(r)"
      let put = try httpRequest(
        port: proxyPort, method: "PUT", rawPath: "/api/v1/boards/\(room)",
        headers: [
          "Authorization": "Bearer affinity-key-0123456789abcdef0123456789", "Content-Type": "application/json",
        ], body: board)
      #expect(put.status == 201, "PUT \(room) through the proxy: \(put.statusLine)")
      let members = try (0..<3).map {
        try Self.joinThroughProxy(port: proxyPort, room: room, client: "m\(r)-\($0)", context: context)
      }
      let sessionNodes = Set(members.map { Self.node(ofSession: $0.session) })
      #expect(sessionNodes.count == 1, "room \(room) is on \(sessionNodes)")
      let writer = nodes.first { node in
        node.0.output.contains { $0.hasSuffix("board created by the API room=\(room)") }
      }
      #expect(
        writer.map { Self.node(of: $0.0) } == sessionNodes.first,
        "room \(room): its PUT went elsewhere than its sockets")
      nodeOfRoom[room] = sessionNodes.first
      for member in members { member.close() }
    }
    #expect(Set(nodeOfRoom.values).count == 2, "every room on one node: \(nodeOfRoom)")

    // Failover: 4 members of one room make 200 moves; the room's node is killed part-way.
    let room = "failover"
    let items = ["x", "y", "z"]
    var clients = try (0..<4).map {
      try Self.joinThroughProxy(port: proxyPort, room: room, client: "k\($0)", context: context)
    }
    let home = Self.node(ofSession: clients[0].session)
    #expect(clients.allSatisfy { Self.node(ofSession: $0.session) == home })
    try ClusterPair.seed(clients[0], items: items)
    let seeded = UInt64(items.count + 1)
    var rng = SplitMix64(seed: 25)
    let perClient = 50
    let ops = clients.indices.map { k in
      (0..<perClient).map { n -> (id: String, op: JSONValue) in
        let item = items[rng.below(items.count)]
        let anchor = items[rng.below(items.count)]
        return ("k\(k):\(n)", anchor == item ? Ops.move(item, list: "l") : Ops.move(item, list: "l", after: anchor))
      }
    }
    var acknowledged: [String: UInt64] = [:]
    for (k, c) in clients.enumerated() { for op in ops[k].prefix(20) { c.op(op.id, op.op) } }
    for (k, c) in clients.enumerated() {
      acknowledged.merge(ClusterKillTests.acks(c, ids: Set(ops[k].prefix(20).map(\.id)))) { a, _ in a }
    }
    #expect(acknowledged.count == 4 * 20)
    for (k, c) in clients.enumerated() { for op in ops[k].dropFirst(20) { c.op(op.id, op.op) } }
    let victim = try #require(
      nodes.firstIndex { node in node.0.output.contains { $0.contains(" node=\(home) ") } },
      "no child logged node=\(home)")
    nodes[victim].0.terminate()
    for (k, c) in clients.enumerated() {
      acknowledged.merge(ClusterKillTests.acks(c, ids: Set(ops[k].map(\.id)), timeout: 5)) { a, _ in a }
      #expect(c.waitForClose(timeout: 10) != nil)
    }
    // Through the same proxy address, each client gets the other node, catches up from its
    // seq, and re-sends every op: acknowledged ones keep their seq, the rest land once.
    for k in clients.indices {
      let before = clients[k].welcome
      clients[k] = try Self.joinThroughProxy(
        port: proxyPort, room: room, client: "k\(k)", since: UInt64(before["seq"]?.numberValue ?? 0),
        epoch: before["epoch"], context: context)
      #expect(Self.node(ofSession: clients[k].session) != home)
      for op in ops[k] { clients[k].op(op.id, op.op) }
      let after = ClusterKillTests.acks(clients[k], ids: Set(ops[k].map(\.id)), timeout: 30)
      #expect(after.count == perClient)
      for (id, seq) in after {
        if let earlier = acknowledged[id] { #expect(seq == earlier, "\(id) acknowledged at \(earlier), now \(seq)") }
        acknowledged[id] = seq
      }
    }
    #expect(acknowledged.count == 4 * perClient)
    #expect(Set(acknowledged.values) == Set((seeded + 1)...(seeded + UInt64(4 * perClient))))
    let fresh = try Self.joinThroughProxy(port: proxyPort, room: room, client: "fresh", context: context)
    #expect(fresh.welcome["seq"]?.numberValue == Double(seeded + UInt64(4 * perClient)))
    #expect(Set(boardItems(fresh.welcome["board"], list: "l")) == Set(items))
  }
}
