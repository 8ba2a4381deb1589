import Foundation
import ReorderRooms
import ReorderTransport
import TestRandom
import Testing

@Suite("Collaboration (in-process)", .serialized)
struct CollaborationTests {
  /// Joins `n` clients and seeds list `l` with `items`.
  func room(_ server: InProcessServer, clients n: Int, items: [String]) throws -> [RoomClient] {
    var clients: [RoomClient] = []
    for i in 0..<n { clients.append(try server.join(client: "c\(i)")) }
    clients[0].op("seed:0", Ops.createList("l"))
    var previous: String?
    for (i, item) in items.enumerated() {
      clients[0].op("seed:\(i + 1)", Ops.insert(item, list: "l", after: previous))
      previous = item
    }
    _ = try clients[0].applied(id: "seed:\(items.count)")
    return clients
  }

  @Test("2 and 10 clients see every applied in the same seq order and end with identical boards", arguments: [2, 10])
  func sameOrderSameBoard(clients n: Int) throws {
    let server = try InProcessServer()
    let items = (0..<12).map { "i\($0)" }
    let clients = try room(server, clients: n, items: items)
    var models = try clients.map { c -> ClientModel in
      var m = ClientModel(welcome: c.welcome)
      _ = try c.follow(&m, until: UInt64(items.count + 1))
      return m
    }
    var rng = SplitMix64(seed: UInt64(n))
    let perClient = 20
    for round in 0..<perClient {
      for (k, c) in clients.enumerated() {
        let item = items[rng.below(items.count)]
        let anchor = items[rng.below(items.count)]
        let op = anchor == item ? Ops.move(item, list: "l") : Ops.move(item, list: "l", after: anchor)
        c.op("c\(k):\(round)", op)
      }
    }
    let total = UInt64(items.count + 1 + n * perClient)
    var orders: [[UInt64]] = []
    for (k, c) in clients.enumerated() { orders.append(try c.follow(&models[k], until: total)) }
    for order in orders { #expect(order == orders[0]) }
    #expect(orders[0] == Array((UInt64(items.count + 2))...total))
    let fresh = try server.join(client: "fresh")
    let truth = ClientModel(welcome: fresh.welcome)
    for m in models {
      #expect(m.lists == truth.lists)
      #expect(m.seq == truth.seq)
    }
    #expect(Set(truth.lists["l"] ?? []) == Set(items))
  }

  @Test("Drags are relayed in drags frames; a client that disconnects mid-drag is cancelled for the others")
  func dragsAndCancelOnDisconnect() throws {
    let server = try InProcessServer()
    let clients = try room(server, clients: 3, items: ["p", "q"])
    let (a, b, c) = (clients[0], clients[1], clients[2])
    a.send(#"{"type":"drag","phase":"start","item":"p","list":"l","index":0,"x":0.1,"y":0.2}"#)
    a.send(#"{"type":"drag","phase":"move","item":"p","list":"l","over":"q","index":1,"x":0.3,"y":0.9,"t":"abc"}"#)
    for other in [b, c] {
      let update = try other.next { frame in
        guard frame["type"] == .string("drags"), case .array(let u)? = frame["updates"] else { return false }
        return u.contains { $0["phase"] == .string("move") && $0["session"] == .string(a.session) }
      }
      guard case .array(let updates)? = update["updates"] else { continue }
      let mine = updates.first { $0["session"] == .string(a.session) }
      #expect(mine?["over"] == .string("q"))
      #expect(mine?["index"] == .number(1))
      #expect(mine?["t"] == .string("abc"))
      #expect(mine?["name"] == .string("Tester"))
    }
    // A newcomer sees who holds what.
    let d = try server.join(client: "d")
    guard case .array(let peers)? = d.welcome["peers"] else {
      Issue.record("no peers")
      return
    }
    #expect(peers.contains { $0["session"] == .string(a.session) && $0["drag"]?["item"] == .string("p") })
    a.close()
    for other in [b, c, d] {
      let cancel = try other.next { frame in
        guard frame["type"] == .string("drags"), case .array(let u)? = frame["updates"] else { return false }
        return u.contains { $0["phase"] == .string("cancel") && $0["session"] == .string(a.session) }
      }
      #expect(cancel["type"] == .string("drags"))
      _ = try other.next { $0["type"] == .string("peer") && $0["event"] == .string("leave") }
    }
  }

  @Test("Concurrent moves of the same item leave it in exactly one place, the same for everyone")
  func concurrentMovesSameItem() throws {
    let server = try InProcessServer()
    let clients = try room(server, clients: 2, items: ["p", "q", "r", "s"])
    clients[0].op("l2", Ops.createList("m"))
    _ = try clients[0].applied(id: "l2")
    var models = clients.map { ClientModel(welcome: $0.welcome) }
    for round in 0..<10 {
      clients[0].op("a\(round)", Ops.move("p", list: round % 2 == 0 ? "m" : "l"))
      clients[1].op("b\(round)", Ops.move("p", list: "l", after: "r"))
    }
    for (k, c) in clients.enumerated() {
      _ = try c.follow(&models[k], until: 26)
      #expect(models[k].occurrences("p") == 1)
    }
    #expect(models[0].lists == models[1].lists)
  }

  @Test("Move against a concurrent delete: the item ends deleted everywhere")
  func moveVersusDelete() throws {
    let server = try InProcessServer()
    let clients = try room(server, clients: 2, items: ["p", "q", "r"])
    var models = clients.map { ClientModel(welcome: $0.welcome) }
    clients[0].op("a1", Ops.move("q", list: "l", after: "r"))
    clients[1].op("b1", Ops.delete("q"))
    let deleted = try clients[1].applied(id: "b1")
    let seq = UInt64(deleted["seq"]?.numberValue ?? 0)
    for (k, c) in clients.enumerated() {
      _ = try c.follow(&models[k], until: max(seq, 5))
      #expect(models[k].occurrences("q") == 0)
    }
    let fresh = try server.join(client: "fresh")
    #expect(boardItems(fresh.welcome["board"], list: "l") == ["p", "r"])
  }

  @Test("A cross-list move is atomic: the item is never in two lists nor in none")
  func crossListAtomic() throws {
    let server = try InProcessServer()
    let clients = try room(server, clients: 2, items: ["p", "q"])
    clients[0].op("m", Ops.createList("m"))
    _ = try clients[0].applied(id: "m")
    var model = ClientModel(welcome: clients[1].welcome)
    for i in 0..<20 { clients[i % 2].op("x\(i)", Ops.move("p", list: i % 2 == 0 ? "m" : "l")) }
    var seen = 0
    while seen < 20 {
      let applied = try clients[1].next(type: "applied")
      guard let seq = applied["seq"]?.numberValue, UInt64(seq) > model.seq else { continue }
      model.apply(applied)
      if applied["id"]?.stringValue?.hasPrefix("x") == true {
        #expect(model.occurrences("p") == 1)
        seen += 1
        #expect(applied["op"]?["from"]?["list"] != nil)
      }
    }
  }

  @Test("Two clients inserting runs at the same gap do not interleave")
  func runsDoNotInterleave() throws {
    let server = try InProcessServer()
    let clients = try room(server, clients: 2, items: ["p", "z"])
    var previous = ["a": "p", "b": "p"]
    for i in 0..<5 {
      for (k, who) in ["a", "b"].enumerated() {
        let id = "\(who)\(i)"
        clients[k].op(id, Ops.insert(id, list: "l", after: previous[who]))
        previous[who] = id
      }
    }
    _ = try clients[0].applied(id: "a4")
    _ = try clients[1].applied(id: "b4")
    let fresh = try server.join(client: "fresh")
    let order = boardItems(fresh.welcome["board"], list: "l")
    let runA = order.filter { $0.hasPrefix("a") }
    let runB = order.filter { $0.hasPrefix("b") }
    #expect(runA == ["a0", "a1", "a2", "a3", "a4"])
    #expect(runB == ["b0", "b1", "b2", "b3", "b4"])
    func contiguous(_ run: [String]) -> Bool {
      guard let first = order.firstIndex(of: run[0]) else { return false }
      return Array(order[first..<min(order.count, first + run.count)]) == run
    }
    #expect(contiguous(runA))
    #expect(contiguous(runB))
    #expect(order.first == "p" && order.last == "z")
  }

  @Test("A client reconnecting with since gets exactly the ops it missed")
  func sinceCatchUpExact() throws {
    let server = try InProcessServer()
    let clients = try room(server, clients: 2, items: ["p", "q", "r"])
    var model = ClientModel(welcome: clients[1].welcome)
    _ = try clients[1].follow(&model, until: 4)
    clients[1].close()
    for i in 0..<7 { clients[0].op("m\(i)", Ops.move(["p", "q", "r"][i % 3], list: "l")) }
    _ = try clients[0].applied(id: "m6")
    let back = try server.join(client: "c1", since: 4, epoch: clients[1].welcome["epoch"])
    #expect(back.welcome["board"] == nil)
    guard case .array(let ops)? = back.welcome["ops"] else {
      Issue.record("no ops in welcome")
      return
    }
    #expect(ops.map { $0["seq"] } == (5...11).map { JSONValue.number(Double($0)) })
    #expect(ops.map { $0["id"] } == (0..<7).map { JSONValue.string("m\($0)") })
    for op in ops { model.apply(op) }
    let fresh = try server.join(client: "fresh")
    #expect(model.lists == ClientModel(welcome: fresh.welcome).lists)
  }

  @Test("Rooms are isolated: ops, drags and peers of one room never reach another")
  func roomsIsolated() throws {
    let server = try InProcessServer()
    let a = try server.join(room: "one", client: "a")
    let b = try server.join(room: "two", client: "b")
    a.op("a:1", Ops.createList("l"))
    a.op("a:2", Ops.insert("p", list: "l"))
    _ = try a.applied(id: "a:2")
    a.send(#"{"type":"drag","phase":"start","item":"p"}"#)
    b.op("b:1", Ops.createList("l"))
    #expect(try b.applied(id: "b:1")["seq"] == .number(1))
    let probe = try server.join(room: "two", client: "probe")
    #expect(boardItems(probe.welcome["board"], list: "l").isEmpty)
    _ = try b.next(type: "peer")
    #expect(!b.buffer.contains { $0["type"] == .string("drags") || $0["id"] == .string("a:1") })
  }

  @Test("Re-sent unacknowledged ops are applied exactly once")
  func resentOpsAppliedOnce() throws {
    let server = try InProcessServer()
    let clients = try room(server, clients: 1, items: [])
    let a = clients[0]
    for i in 0..<50 { a.op("a:\(i)", Ops.insert("n\(i)", list: "l")) }
    a.close()  // without waiting for the acks
    let again = try server.join(client: "c0", since: 1, epoch: a.welcome["epoch"])
    for i in 0..<50 { again.op("a:\(i)", Ops.insert("n\(i)", list: "l")) }
    var seqByID: [String: Set<Double>] = [:]
    var caughtUp: [JSONValue] = []
    if case .array(let ops)? = again.welcome["ops"] { caughtUp = ops }
    for op in caughtUp {
      seqByID[op["id"]?.stringValue ?? "", default: []].insert(op["seq"]?.numberValue ?? 0)
    }
    for i in 0..<50 {
      let applied = try again.applied(id: "a:\(i)")
      seqByID["a:\(i)", default: []].insert(applied["seq"]?.numberValue ?? 0)
    }
    for i in 0..<50 { #expect(seqByID["a:\(i)"]?.count == 1, "op a:\(i) got several seqs") }
    let fresh = try server.join(client: "fresh")
    let items = boardItems(fresh.welcome["board"], list: "l")
    #expect(items.count == 50)
    #expect(Set(items).count == 50)
    #expect(fresh.welcome["seq"] == .number(51))
  }
}
