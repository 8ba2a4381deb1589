import Foundation
import ReorderRooms
import ReorderTransport
import TestSupport
import Testing

/// Custom presence states and broadcasts through the server's websockets on one node (in-process): relayed to the others,
/// in a joiner's welcome, gone with their session; bad input, floods and the `broadcast: false`
/// claim get their errors and the connection goes on.
@Suite("Presence states and broadcasts (in-process)", .serialized)
struct PresenceStateOverSocketsTests {
  @Test("A state reaches the other member and a joiner's welcome; it leaves as null with its session")
  func statesRelayed() throws {
    let server = try InProcessServer()
    let a = try server.join(client: "a")
    let b = try server.join(client: "b")
    a.send(#"{"type":"presence","state":{"list":"foods"}}"#)
    let frame = try b.next(type: "presence")
    guard case .array(let updates)? = frame["updates"] else {
      Issue.record("no updates")
      return
    }
    #expect(updates.first?["session"] == .string(a.session))
    #expect(updates.first?["state"]?["list"] == .string("foods"))
    let c = try server.join(client: "c")
    guard case .array(let states)? = c.welcome["presence"] else {
      Issue.record("no presence in the welcome")
      return
    }
    #expect(states.map { $0["session"] } == [.string(a.session)])
    a.close()
    let gone = try c.next(type: "presence")
    #expect(gone["updates"] == .array([.object([("session", .string(a.session)), ("state", .null)])]))
  }

  @Test("A broadcast reaches the others, not the sender; bad input and floods get errors, the connection lives on")
  func broadcastsAndLimits() throws {
    let server = try InProcessServer { $0.maxBroadcastsPerSecond = 3 }
    let a = try server.join(client: "a")
    let b = try server.join(client: "b")
    let big = String(repeating: "x", count: WireLimits.maxPresenceStateBytes + 1)
    a.send(#"{"type":"presence","state":{"k":"\#(big)"}}"#)
    #expect(try a.next(type: "error")["code"] == .string("too_large"))
    a.send(#"{"type":"presence","state":"list"}"#)
    #expect(try a.next(type: "error")["code"] == .string("wrong_type"))
    for n in 0..<8 { a.send(#"{"type":"broadcast","event":{"n":\#(n)}}"#) }
    #expect(try a.next(type: "error")["code"] == .string("rate_limited"))
    var received: [JSONValue] = []
    for _ in 0..<6 { received.append(try b.next(type: "broadcast")) }
    #expect(received.map { $0["event"]?["n"] } == (0..<6).map { .int($0) })
    #expect(received.allSatisfy { $0["session"] == .string(a.session) })
    a.send(#"{"type":"presence","state":{"ok":true}}"#)
    let update = try b.next(type: "presence")
    #expect(
      update["updates"]
        == .array([.object([("session", .string(a.session)), ("state", .object([("ok", .bool(true))]))])]))
    #expect(a.buffer.allSatisfy { $0["type"] != .string("broadcast") })
    #expect(a.closeEvent == nil)
  }
}

/// The `broadcast: false` claim of a real signed token (in-process).
@Suite("Broadcast claim (in-process)", .serialized)
struct BroadcastClaimOverSocketsTests {
  @Test("a viewer whose token says broadcast: false gets forbidden for a broadcast, stays open, and its state goes out")
  func broadcastForbidden() throws {
    let server = try AuthOverSocketsTests.AuthServer()
    let quiet = try server.connect(room: "t")
    try quiet.hello(
      room: "t", client: "q",
      token: AuthOverSocketsTests.token(AuthOverSocketsTests.claims(["role": "viewer", "broadcast": false])))
    let other = try server.connect(room: "t")
    try other.hello(
      room: "t", client: "o", token: AuthOverSocketsTests.token(AuthOverSocketsTests.claims(["sub": "user-2"])))
    quiet.send(#"{"type":"broadcast","event":{"n":1}}"#)
    let error = try quiet.next(type: "error")
    #expect(error["code"] == .string("forbidden"))
    quiet.send(#"{"type":"presence","state":{"list":"l"}}"#)
    let update = try other.next(type: "presence")
    #expect(
      update["updates"]
        == .array([.object([("session", .string(quiet.session)), ("state", .object([("list", .string("l"))]))])]))
    #expect(other.buffer.allSatisfy { $0["type"] != .string("broadcast") })
    other.send(#"{"type":"broadcast","event":{"n":2}}"#)
    #expect(try quiet.next(type: "broadcast")["event"]?["n"] == .int(2))
    #expect(quiet.closeEvent == nil)
  }
}
