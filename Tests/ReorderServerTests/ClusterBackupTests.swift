import Foundation
import ReorderRedis
import ReorderRooms
import ReorderServer
import ReorderStore
import ReorderTransport
import TestSupport
import Testing

/// `reorder backup --redis` and `reorder restore --redis` as an operator runs them, against real
/// `redis-server`s (free ports, temp dirs, stopped by PID) and nodes in this process: a restored
/// room equals the original board and seq, served from a data directory or from another Redis.
@Suite("reorder backup and restore in cluster mode", .serialized)
struct ClusterBackupTests {
  /// Runs the built `reorder` with `arguments`: its exit status and output.
  func reorder(_ arguments: [String]) throws -> (status: Int32?, output: [String]) {
    let binary = try #require(ChildProcess.builtProduct("reorder"))
    let child = try ChildProcess(executable: binary, arguments: arguments)
    let status = child.waitForExit(timeout: 60)
    return (status, child.output)
  }

  /// What a new client of `room` on `port` is welcomed with: seq, epoch and board.
  func welcomed(port: Int, room: String, context: WebSocketClientContext) throws -> (JSONValue?, JSONValue?, JSONValue?)
  {
    let client = try RoomClient.join(port: port, room: room, client: "probe", context: context)
    defer { client.close() }
    return (client.welcome["seq"], client.welcome["epoch"], client.welcome["board"])
  }

  /// Boards made by `makeBoards`: the seq of each, and the welcome of `t` at seq 6, before its
  /// concurrent moves.
  struct Made {
    var seqs: [String: UInt64]
    var early: JSONValue
  }

  /// Makes boards `t` (through two nodes, with concurrent moves: each made on a replica that had
  /// not applied the other's, so its maker's view differs from how it resolved) and `u` on the
  /// nodes at `ports`.
  func makeBoards(ports: [Int], context: WebSocketClientContext) throws -> Made {
    let onA = try RoomClient.join(port: ports[0], room: "t", client: "a", context: context)
    defer { onA.close() }
    try ClusterPair.seed(onA, items: ["x", "y", "z", "w"])
    let onB = try RoomClient.join(port: ports[1], room: "t", client: "b", context: context)
    defer { onB.close() }
    onA.op("a:del", Ops.delete("w"))
    _ = try onA.applied(id: "a:del")
    _ = try onB.applied(id: "a:del")
    let early = try RoomClient.join(port: ports[1], room: "t", client: "early", context: context)
    let earlyWelcome = early.welcome
    early.close()
    for n in 0..<4 {
      onA.op("a:\(n)", Ops.move("x", list: "l", after: n % 2 == 0 ? "z" : nil))
      onB.op("b:\(n)", Ops.move("z", list: "l", after: n % 2 == 0 ? "x" : "y"))
      _ = try onA.applied(id: "a:\(n)")
      _ = try onA.applied(id: "b:\(n)")
      _ = try onB.applied(id: "a:\(n)")
      _ = try onB.applied(id: "b:\(n)")
    }
    let other = try RoomClient.join(port: ports[1], room: "u", client: "c", context: context)
    defer { other.close() }
    try ClusterPair.seed(other, items: ["p", "q"])
    other.op("c:1", Ops.move("q", list: "l"))
    _ = try other.applied(id: "c:1")
    return Made(seqs: ["t": 14, "u": 4], early: earlyWelcome)
  }

  /// The lists a client that saw `early` has after joining `port` with its `since` and `epoch`,
  /// and whether it got them from the catch-up's ops (else from the board).
  func caughtUp(port: Int, early: JSONValue, context: WebSocketClientContext) throws -> ([String: [String]], Bool) {
    let client = try RoomClient.join(
      port: port, room: "t", client: "early", since: UInt64(early["seq"]?.numberValue ?? 0), epoch: early["epoch"],
      context: context)
    defer { client.close() }
    guard case .array(let ops)? = client.welcome["ops"] else {
      return (ClientModel(welcome: client.welcome).lists, false)
    }
    var model = ClientModel(welcome: early)
    for op in ops { model.apply(op) }
    return (model.lists, true)
  }

  /// The lists of a welcome's board.
  func lists(_ board: JSONValue?) -> [String: [String]] {
    ClientModel(welcome: .object([("board", board ?? .null)])).lists
  }

  @Test(
    "backup --redis serves the same boards at the same seq from a data directory; restore loads them into a fresh Redis"
  )
  func roundTrip() throws {
    let redis = try RedisServer()
    defer { redis.stop() }
    let url = "redis://127.0.0.1:\(redis.port)"
    let a = try TestServer {
      $0.redis = url
      $0.snapshotEvery = 5
    }
    let b = try TestServer { $0.redis = url }
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let made = try makeBoards(ports: [a.port, b.port], context: context)
    let seqs = made.seqs
    var truth: [String: (JSONValue?, JSONValue?, JSONValue?)] = [:]
    for room in seqs.keys { truth[room] = try welcomed(port: b.port, room: room, context: context) }
    #expect(truth["t"]?.0 == .number(Double(seqs["t"]!)))
    #expect(truth["u"]?.0 == .number(Double(seqs["u"]!)))

    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let file = directory.path + "/cluster.sqlite3"
    let backup = try reorder(["backup", "--redis", url, "--out", file])
    #expect(backup.status == 0, "\(backup.output)")
    #expect(backup.output.contains { $0.contains("backed up 2 rooms, 18 ops") }, "\(backup.output)")
    let again = try reorder(["backup", "--redis", url, "--out", file])
    #expect(again.status == 1, "an existing file is not overwritten: \(again.output)")

    // (a) One node started on a data directory holding the file.
    let data = directory.path + "/data"
    try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: file, toPath: data + "/reorder.sqlite3")
    do {
      let single = try TestServer(data: data)
      for room in seqs.keys {
        let got = try welcomed(port: single.port, room: room, context: context)
        #expect(got.0 == truth[room]?.0, "\(room): seq")
        #expect(got.1 == truth[room]?.1, "\(room): epoch")
        #expect(got.2 == truth[room]?.2, "\(room): board")
      }
      // A client that saw seq 6 catches up from the entries as they resolved, not as their
      // makers saw them: it ends with the board.
      let (caught, fromOps) = try caughtUp(port: single.port, early: made.early, context: context)
      #expect(fromOps, "the catch-up window covers seq 6")
      #expect(caught == lists(truth["t"]?.2))
      // The history goes on from the backup's seq.
      let editor = try RoomClient.join(port: single.port, room: "t", client: "e", context: context)
      editor.op("e:1", Ops.move("y", list: "l"))
      #expect(try editor.applied(id: "e:1")["seq"] == .number(Double(seqs["t"]! + 1)))
      editor.close()
    }

    // (b) The file restored into a fresh Redis, served by a node of it.
    let fresh = try RedisServer()
    defer { fresh.stop() }
    let freshURL = "redis://127.0.0.1:\(fresh.port)"
    let restore = try reorder(["restore", "--redis", freshURL, "--from", file])
    #expect(restore.status == 0, "\(restore.output)")
    #expect(restore.output.contains { $0.contains("restored 2 rooms, 18 ops") }, "\(restore.output)")
    let node = try TestServer { $0.redis = freshURL }
    for room in seqs.keys {
      let got = try welcomed(port: node.port, room: room, context: context)
      #expect(got.0 == truth[room]?.0, "\(room): seq")
      #expect(got.1 == truth[room]?.1, "\(room): epoch")
      #expect(got.2 == truth[room]?.2, "\(room): board")
    }
    #expect(try caughtUp(port: node.port, early: made.early, context: context).0 == lists(truth["t"]?.2))
    let editor = try RoomClient.join(port: node.port, room: "u", client: "e", context: context)
    editor.op("e:1", Ops.move("p", list: "l"))
    #expect(try editor.applied(id: "e:1")["seq"] == .number(Double(seqs["u"]! + 1)))
    editor.close()

    // Rooms Redis has are refused unless --replace; then they are the file's again.
    let refused = try reorder(["restore", "--redis", freshURL, "--from", file])
    #expect(refused.status == 1)
    #expect(refused.output.contains { $0.contains("already in Redis: t, u") && $0.contains("Nothing was restored") })
    let replaced = try reorder(["restore", "--redis", freshURL, "--from", file, "--replace"])
    #expect(replaced.status == 0, "\(replaced.output)")
    #expect(replaced.output.contains { $0.contains("restored 2 rooms, 18 ops") && $0.contains("replaced") })
    let connection = try RedisConnection(url: RedisURL(parsing: freshURL))
    defer { connection.close() }
    #expect(try connection.meta(room: "u").seq == seqs["u"]!)
    node.server.shutdown()
    a.server.shutdown()
    b.server.shutdown()
  }

  @Test("a log trimmed below its snapshot is backed up from the snapshot, and restores to the same board and seq")
  func trimmedLog() throws {
    let redis = try RedisServer()
    defer { redis.stop() }
    let url = "redis://127.0.0.1:\(redis.port)"
    let a = try TestServer {
      $0.redis = url
      $0.snapshotEvery = 5
    }
    let b = try TestServer {
      $0.redis = url
      $0.snapshotEvery = 5
    }
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    _ = try makeBoards(ports: [a.port, b.port], context: context)
    let connection = try RedisConnection(url: RedisURL(parsing: url))
    defer { connection.close() }
    var snapshotSeq: UInt64 = 0
    #expect(
      waitUntil(timeout: 10) {
        snapshotSeq = (try? connection.snapshot(room: "t"))?.seq ?? 0
        return snapshotSeq >= 10
      })
    // What the lease holder does past its windows (10,000 ops at least): op 1 and the entries
    // before the snapshot's last two go.
    _ = try connection.trim(room: "t", keepFrom: snapshotSeq - 1)
    let kept = try connection.entries(room: "t", after: 0)
    #expect(kept.first?.seq == snapshotSeq - 1)
    let truth = try welcomed(port: b.port, room: "t", context: context)

    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let file = directory.path + "/cluster.sqlite3"
    let backup = try reorder(["backup", "--redis", url, "--out", file])
    #expect(backup.status == 0, "\(backup.output)")
    let data = directory.path + "/data"
    try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: file, toPath: data + "/reorder.sqlite3")
    do {
      let single = try TestServer(data: data)
      let got = try welcomed(port: single.port, room: "t", context: context)
      #expect(got.0 == truth.0 && got.1 == truth.1 && got.2 == truth.2, "\(got) \(truth)")
    }
    let fresh = try RedisServer()
    defer { fresh.stop() }
    let freshURL = "redis://127.0.0.1:\(fresh.port)"
    let restore = try reorder(["restore", "--redis", freshURL, "--from", file])
    #expect(restore.status == 0, "\(restore.output)")
    let node = try TestServer { $0.redis = freshURL }
    let got = try welcomed(port: node.port, room: "t", context: context)
    #expect(got.0 == truth.0 && got.1 == truth.1 && got.2 == truth.2, "\(got) \(truth)")
    let freshConnection = try RedisConnection(url: RedisURL(parsing: freshURL))
    defer { freshConnection.close() }
    #expect(try freshConnection.meta(room: "t").trimmedSeq >= snapshotSeq)
    node.server.shutdown()
    a.server.shutdown()
    b.server.shutdown()
  }

  @Test("a single node's data directory restores into Redis: a node of it welcomes the same board and seq")
  func singleNodeIntoCluster() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let data = directory.path + "/data"
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    var truth: (JSONValue?, JSONValue?, JSONValue?)
    do {
      let single = try TestServer(data: data) { $0.snapshotEvery = 5 }
      let editor = try RoomClient.join(port: single.port, room: "t", client: "e", context: context)
      try ClusterPair.seed(editor, items: ["x", "y", "z"])
      for n in 0..<20 {
        editor.op("m\(n)", Ops.move(n % 2 == 0 ? "x" : "z", list: "l", after: n % 3 == 0 ? nil : "y"))
        _ = try editor.applied(id: "m\(n)")
      }
      editor.close()
      truth = try welcomed(port: single.port, room: "t", context: context)
      single.server.shutdown()
    }
    // The shape a node's log takes once its windows are behind it (`--history-ops`; at least
    // 10,000, so written here): op 1, a gap, the last ops before the snapshot and those after it.
    let store = try Store(path: data)
    let snapshot = try #require(try store.loadSnapshot(room: "t"))
    #expect(snapshot.seq >= 5)
    let ops = try store.ops(room: "t", after: 0, limit: 100).filter { $0.seq == 1 || $0.seq > snapshot.seq - 2 }
    let rewritten = Committed()
    store.write(
      .replace(
        room: "t", ops: ops, snapshot: StoredSnapshot(seq: snapshot.seq, bytes: snapshot.bytes, board: snapshot.board),
        summary: RoomSummary(epoch: truth.1?.stringValue ?? "", seq: 24, lists: 1, items: 3))
    ) { rewritten.set((try? $0.get()) != nil) }
    #expect(rewritten.wait() == true)
    store.close()
    #expect(truth.0 == .number(24))
    let redis = try RedisServer()
    defer { redis.stop() }
    let url = "redis://127.0.0.1:\(redis.port)"
    let restore = try reorder(["restore", "--redis", url, "--from", data + "/reorder.sqlite3"])
    #expect(restore.status == 0, "\(restore.output)")
    #expect(restore.output.contains { $0.contains("restored 1 room") }, "\(restore.output)")
    let node = try TestServer { $0.redis = url }
    let got = try welcomed(port: node.port, room: "t", context: context)
    #expect(got.0 == truth.0 && got.1 == truth.1 && got.2 == truth.2, "\(got) \(truth)")
    let connection = try RedisConnection(url: RedisURL(parsing: url))
    defer { connection.close() }
    let meta = try connection.meta(room: "t")
    #expect(meta.seq == 24 && meta.trimmedSeq == snapshot.seq - 2, "\(meta)")
    node.server.shutdown()
  }

  @Test("usage: --data and --redis do not go together; restore needs --redis and --from")
  func usage() throws {
    let both = try reorder(["backup", "--data", "/nonexistent", "--redis", "redis://127.0.0.1:1", "--out", "/tmp/x"])
    #expect(both.status == 2)
    #expect(both.output.contains { $0.contains("not both") })
    let noFrom = try reorder(["restore", "--redis", "redis://127.0.0.1:1"])
    #expect(noFrom.status == 2)
    #expect(noFrom.output.contains { $0.contains("--from is required") })
    let unreachable = try reorder(["restore", "--redis", "redis://127.0.0.1:1", "--from", "/nonexistent.sqlite3"])
    #expect(unreachable.status == 1)
  }
}

/// Whether a store write committed, once its completion ran.
final class Committed: @unchecked Sendable {
  private let done = DispatchSemaphore(value: 0)
  private var ok = false

  func set(_ ok: Bool) {
    self.ok = ok
    done.signal()
  }

  /// The outcome, or nil after 10 s without one.
  func wait() -> Bool? { done.wait(timeout: .now() + 10) == .success ? ok : nil }
}
