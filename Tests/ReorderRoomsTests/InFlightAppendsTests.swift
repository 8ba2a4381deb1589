import Testing

@testable import ReorderRooms

/// The appends a cluster room has out, found by ticket and by op key.
@Suite("Appends out, by ticket and by key")
struct InFlightAppendsTests {
  func op(_ key: String) -> RoomLog.InFlight {
    RoomLog.InFlight(
      connections: [], request: key, key: key,
      record: OpRecord(id: key, client: "c", by: "s", resolved: .null, logged: []))
  }

  @Test("a key finds its ticket while its append is out, and not after")
  func byKey() {
    var out = InFlightAppends()
    #expect(out.isEmpty)
    out[1] = op("c\u{1F}a")
    out[2] = op("c\u{1F}b")
    #expect(out.ticket(forKey: "c\u{1F}a") == 1 && out.ticket(forKey: "c\u{1F}b") == 2)
    out[1]!.connections.append(ConnectionHandle(9))
    #expect(out.ticket(forKey: "c\u{1F}a") == 1, "changing an append keeps its key's ticket")
    #expect(out.removeValue(forKey: 1)?.connections == [ConnectionHandle(9)])
    #expect(out.ticket(forKey: "c\u{1F}a") == nil)
    out[2] = nil
    #expect(out.isEmpty && out.ticket(forKey: "c\u{1F}b") == nil)
  }
}
