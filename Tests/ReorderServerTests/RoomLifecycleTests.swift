import Foundation
import ReorderRooms
import TestSupport
import Testing

@Suite("Room lifecycle (in-process)", .serialized)
struct RoomLifecycleTests {
  func roomsLoaded(_ server: some RoomServer) -> Int? {
    guard let response = try? server.get("/healthz"),
      let health = try? JSONValue.parse(response.text)
    else { return nil }
    return health["rooms"]?.numberValue.map { Int($0) }
  }

  @Test("An idle room is unloaded, then reloaded from its snapshot and log with the same board")
  func unloadAndReload() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let server = try InProcessServer(data: directory.path) {
      $0.roomIdleSeconds = 0
      $0.snapshotEvery = 4
    }
    let a = try server.join(client: "a")
    a.op("1", Ops.createList("l"))
    for i in 0..<9 { a.op("i\(i)", Ops.insert("n\(i)", list: "l")) }
    a.op("m", Ops.move("n0", list: "l", after: "n8"))
    _ = try a.applied(id: "m")
    let probe = try server.join(client: "probe")
    let board = probe.welcome["board"]
    probe.close()
    a.close()
    #expect(server.waitUntil(timeout: 10) { roomsLoaded(server) == 0 }, "the idle room was not unloaded")
    let back = try server.join(client: "a", since: 11, epoch: probe.welcome["epoch"])
    #expect(back.welcome["seq"] == .number(11))
    #expect(back.welcome["ops"] == .array([]))
    let fresh = try server.join(client: "fresh")
    #expect(fresh.welcome["board"] == board)
    #expect(roomsLoaded(server) == 1)
    back.op("i0", Ops.insert("n0", list: "l"))
    #expect(try back.applied(id: "i0")["seq"] == .number(2), "a re-sent op id from before the unload was applied again")
  }

  @Test("Demo boards are served to a browser-like client")
  func demoBoards() throws {
    let server = try InProcessServer { $0.demo = true }
    let food = try server.join(room: "food", client: "f")
    #expect(boardItems(food.welcome["board"], list: "foods") == ["pizza", "pasta", "burger", "sizzler"])
    #expect(boardItems(food.welcome["board"], list: "people") == ["john", "daizy", "tom"])
    food.op("f:1", .object([("kind", .string("assign")), ("item", .string("pasta")), ("target", .string("tom"))]))
    #expect(try food.applied(id: "f:1")["op"]?["totals"] == .object([("count", .number(1)), ("sum", .number(13))]))
    let numbers = try server.join(room: "numbers", client: "n")
    #expect(boardItems(numbers.welcome["board"], list: "numbers").count == 100)
  }
}
