import Foundation
import ReorderRooms
import ReorderTransport
import TestSupport
import Testing

/// Custom presence states and broadcasts across two nodes sharing one real `redis-server`.
@Suite("Presence states and broadcasts across nodes", .serialized)
struct ClusterPresenceStateTests {
  @Test("a state and a broadcast from node A reach node B; the state leaves as null with A's session")
  func acrossNodes() throws {
    let pair = try ClusterPair()
    let context = try WebSocketClientContext()
    defer { context.shutdown() }
    let onA = try RoomClient.join(port: pair.a.port, client: "a", name: "Ann", context: context)
    let onB = try RoomClient.join(port: pair.b.port, client: "b", name: "Bob", context: context)
    let session = onA.session
    // B subscribes to the room's channel once its room is loaded: a state published before that
    // is not seen there (presence is not stored), so A sets it again until B has it.
    var n = 0
    let seen = waitUntil(timeout: 15, pollMilliseconds: 1) {
      n += 1
      onA.send(#"{"type":"presence","state":{"list":"foods","n":\#(n)}}"#)
      return
        (try? onB.next(timeout: 0.1) { frame in
          guard frame["type"] == .string("presence"), case .array(let updates)? = frame["updates"] else { return false }
          return updates.contains { $0["session"] == .string(session) && $0["state"]?["list"] == .string("foods") }
        }) != nil
    }
    #expect(seen)
    onA.send(#"{"type":"broadcast","event":{"emoji":"🎉"}}"#)
    let broadcast = try onB.next(type: "broadcast", timeout: 15)
    #expect(broadcast["session"] == .string(session))
    #expect(broadcast["event"]?["emoji"] == .string("🎉"))
    onA.close()
    let gone = try onB.next(timeout: 15) { frame in
      guard frame["type"] == .string("presence"), case .array(let updates)? = frame["updates"] else { return false }
      return updates.contains { $0["session"] == .string(session) && $0["state"] == .null }
    }
    #expect(gone["type"] == .string("presence"))
  }
}
