import ReorderRooms
import Testing

@Suite("Server end to end", .serialized)
struct ServerSmokeTests {
  @Test("hello, op, applied and drags over a real websocket")
  func endToEnd() throws {
    let server = try TestServer()
    let a = try RoomClient.join(port: server.port, client: "a")
    let b = try RoomClient.join(port: server.port, client: "b")
    #expect(a.welcome["seq"] == .number(0))
    _ = try a.next(type: "peer")
    a.op("a:1", Ops.createList("l"))
    a.op("a:2", Ops.insert("x", list: "l"))
    for c in [a, b] {
      #expect(try c.applied(id: "a:1")["seq"] == .number(1))
      #expect(try c.applied(id: "a:2")["seq"] == .number(2))
    }
    b.send(#"{"type":"drag","phase":"start","item":"x","list":"l","x":0.5,"y":0.25,"t":7}"#)
    let drags = try a.next(type: "drags")
    guard case .array(let updates)? = drags["updates"] else {
      Issue.record("no updates")
      return
    }
    #expect(updates.first?["session"] == .string(b.session))
    #expect(updates.first?["item"] == .string("x"))
    #expect(updates.first?["t"] == .number(7))
    a.close()
    b.close()
  }

  @Test("drag.t is passed through as any JSON value (objects and arrays too)")
  func opaqueT() throws {
    let server = try TestServer()
    let a = try RoomClient.join(port: server.port, client: "a")
    let b = try RoomClient.join(port: server.port, client: "b")
    a.op("a:1", Ops.createList("l"))
    a.op("a:2", Ops.insert("x", list: "l"))
    _ = try b.applied(id: "a:2")
    a.send(#"{"type":"drag","phase":"start","item":"x","list":"l","t":{"clock":[1,2,{"n":null}],"who":"a"}}"#)
    let drags = try b.next(type: "drags")
    guard case .array(let updates)? = drags["updates"] else {
      Issue.record("no updates")
      return
    }
    #expect(
      updates.first?["t"]
        == .object([
          ("clock", .array([.number(1), .number(2), .object([("n", .null)])])), ("who", .string("a")),
        ]))
    a.close()
    b.close()
  }
}
