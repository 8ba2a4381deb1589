import Foundation
import ReorderRooms
import ReorderStore
import TestSupport
import Testing

@Suite("Storage through the port (in-process)", .serialized)
struct StorageSeamTests {
  @Test("A room whose stored snapshot is damaged closes with 1011 storage failure: corrupt; other rooms keep working")
  func damagedRoom() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let store = try Store(path: directory.path)
    store.saveSnapshot(room: "bad", seq: 1, bytes: [1, 2, 3])
    store.flush()
    store.close()
    let server = try InProcessServer(data: directory.path)
    let bad = try server.connect(room: "bad")
    bad.send(#"{"type":"hello","room":"bad","client":"c","name":"N","color":"red"}"#)
    let closed = bad.waitForClose()
    #expect(closed?.code == 1011)
    #expect(closed?.reason == "storage failure: corrupt")
    #expect(bad.buffer.first?["code"] == .string("room_unavailable"))
    let good = try server.join(room: "good", client: "g")
    #expect(good.welcome["type"] == .string("welcome"))
    let statistics = try #require(server.server.statistics())
    #expect(statistics.rooms.loadsFailed == 1)
    #expect(statistics.rooms.loadsCompleted == 1)
    good.close()
  }

  @Test("Statistics are values: an applied op is counted, with its received → durable and commit latency")
  func statistics() throws {
    let server = try InProcessServer()
    let a = try server.join(client: "a")
    a.op("a:1", Ops.createList("l"))
    _ = try a.applied(id: "a:1")
    let statistics = try #require(server.server.statistics())
    #expect(statistics.rooms.opsApplied == 1)
    #expect(statistics.rooms.members == 1)
    #expect(statistics.rooms.messagesReceived["op"] == 1)
    #expect(statistics.durableLatency.count == 1)
    #expect(try #require(statistics.store).commitLatency.count >= 1)
    a.close()
  }
}
