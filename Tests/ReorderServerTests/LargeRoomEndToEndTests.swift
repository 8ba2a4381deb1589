import ReorderRooms
import ReorderTransport
import Testing

@Suite("Large rooms (in-process)", .serialized)
struct LargeRoomEndToEndTests {
  @Test("Past 100 members joins and leaves arrive as coalesced peers frames with the exact count")
  func coalescedOverSockets() throws {
    let server = try InProcessServer()
    let first = try server.join(client: "c0")
    #expect(first.welcome["peer_count"] == .number(0))
    // One connection on a light server: the default pacing flushes every 1 ms (1 / --presence-max-hz).
    #expect(first.welcome["presence_interval_ms"] == .number(1))
    var clients = [first]
    for i in 1..<110 { clients.append(try server.join(client: "c\(i)")) }
    let last = clients[109]
    #expect(last.welcome["peer_count"] == .number(109))
    guard case .array(let listed)? = last.welcome["peers"] else {
      Issue.record("no peers")
      return
    }
    #expect(listed.count == 100)
    // The first 99 joins reach `first` as `peer` frames; the rest in `peers` frames, counting
    // everyone in the end.
    let counted = try first.next(timeout: 10) { $0["type"] == .string("peers") && $0["count"] == .number(109) }
    #expect(counted["type"] == .string("peers"))
    #expect(first.buffer.filter { $0["type"] == .string("peer") }.count <= 99)
    // Frames of the joins still buffered (one may count 108 on the way up) are not the leave's.
    first.buffer.removeAll { $0["type"] == .string("peers") }
    clients[5].close()
    let afterLeave = try first.next(timeout: 10) { $0["type"] == .string("peers") && $0["count"] == .number(108) }
    #expect(afterLeave["left"] == .array([.string(clients[5].session)]))
    for c in clients { c.close() }
  }
}
