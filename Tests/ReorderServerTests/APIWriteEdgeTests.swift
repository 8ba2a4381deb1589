import Foundation
import ReorderRooms
import TestSupport
import Testing

@testable import ReorderStore

/// The API's writes where they meet other traffic or older data: a replace while a client's ops
/// are being committed, a full server, boards stored before summaries were kept.
@Suite("HTTP API writes: edges (in-process)", .serialized)
struct APIWriteEdgeTests {
  @Test(
    "A replace while a client's ops are committed: after the second welcome only the new history's ops arrive, gap-free"
  )
  func replaceUnderTraffic() throws {
    let server = try APIWriteTests.Server(demo: true)
    let client = try server.join(room: "numbers", client: "c")
    for n in 1...60 { client.op("c:\(n)", Ops.move("n\(n % 100 + 1)", list: "numbers")) }
    let body = #"{"lists":[{"id":"l","title":"L","layout":"list","items":[{"id":"a"},{"id":"b"}]}]}"#
    let replaced = try server.call("PUT", "/api/v1/boards/numbers?replace=true", body: body)
    #expect(replaced.status == 200)
    client.op("after", Ops.move("a", list: "l", after: "b"))
    // Everything up to the new history's applied "after", in arrival order.
    _ = try client.peek { $0["id"] == .string("after") }
    let frames = client.buffer
    guard let start = frames.firstIndex(where: { $0["type"] == .string("welcome") }) else {
      Issue.record("no second welcome")
      return
    }
    let welcome = frames[start]
    #expect(welcome["epoch"] == replaced.json?["epoch"])
    #expect(welcome["seq"] == .number(3))
    // Nothing of the old history comes after the welcome: only the new one, from seq 4.
    let later = frames[(start + 1)...].filter { $0["type"] == .string("applied") }
    #expect(later.map { $0["seq"] } == [.number(4)])
    #expect(later.first?["id"] == .string("after"))
    client.close()
  }

  @Test("A write that needs one more open board than --max-rooms allows is 503; a PUT needs none")
  func serverFull() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try directory.write("keys", APITests.key + "\n")
    let server = try InProcessServer { configuration in
      configuration.apiKeyFile = directory.path + "/keys"
      configuration.maxRooms = 1
    }
    let client = try server.join(room: "one", client: "c")
    let ops = #"{"ops":[{"id":"1","op":{"kind":"createList","list":"m","title":"M","layout":"list"}}]}"#
    let reply = try APITests().call(server, "POST", "/api/v1/boards/two/ops", body: ops)
    #expect(reply.status == 503)
    #expect(reply.headers["content-type"] == "application/problem+json")
    #expect(reply.json?["title"] == .string("server full"))
    // A PUT writes the board to storage without opening it.
    #expect(
      try APITests().call(
        server, "PUT", "/api/v1/boards/two", body: #"{"lists":[{"id":"l","title":"L","layout":"list"}]}"#
      )
      .status == 201)
    #expect(
      try APITests().call(
        server, "PUT", "/api/v1/boards/one", body: #"{"lists":[{"id":"l","title":"L","layout":"list"}]}"#
      )
      .status == 201)
    client.close()
  }

  @Test("A board stored before summaries were kept is listed with its figures, read once from its history")
  func listsOlderBoards() throws {
    let server = try APIWriteTests.Server(demo: true)
    server.server = nil
    let path = server.directory.path + "/data/" + Store.databaseFileName
    let db = try SQLiteConnection(location: path, displayPath: path, create: false, uri: false)
    try db.execute("UPDATE rooms SET epoch = NULL, seq = NULL, lists = NULL, items = NULL, updated_ms = NULL")
    db.close()
    try server.start()
    let list = try server.call("GET", "/api/v1/boards")
    guard case .array(let boards)? = list.json?["boards"] else {
      Issue.record("no list")
      return
    }
    let numbers = boards.first { $0["room"] == .string("numbers") }
    #expect(numbers?["seq"] == .number(101))
    #expect(numbers?["items"] == .number(100))
    #expect(numbers?["lists"] == .number(1))
    #expect(numbers?["epoch"]?.stringValue?.count == 16)
    // Saved for the next list: read once the server has stopped (its store committed everything).
    server.server = nil
    let stored = try Store(path: server.directory.path + "/data").rooms(after: nil, limit: 10)
    #expect(stored.allSatisfy { $0.summary != nil })
  }

  @Test("A board loaded only for an API write is unloaded once idle, like one nobody is in")
  func loadedForTheAPIIsUnloaded() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try directory.write("keys", APITests.key + "\n")
    let server = try InProcessServer(data: directory.path + "/data") { configuration in
      configuration.apiKeyFile = directory.path + "/keys"
      configuration.roomIdleSeconds = 0
    }
    let body = #"{"lists":[{"id":"l","title":"L","layout":"list","items":[{"id":"a"},{"id":"b"}]}]}"#
    #expect(try APITests().call(server, "PUT", "/api/v1/boards/idle", body: body).status == 201)
    #expect(server.waitUntil(timeout: 10) { RoomLifecycleTests().roomsLoaded(server) == 0 })
    let ops = #"{"ops":[{"id":"1","op":{"kind":"move","item":"a","list":"l","after":"b"}}]}"#
    let reply = try APITests().call(server, "POST", "/api/v1/boards/idle/ops", body: ops)
    guard case .array(let results)? = reply.json?["results"] else {
      Issue.record("no results")
      return
    }
    #expect(results.first?["seq"] == .number(4))
    #expect(server.waitUntil(timeout: 10) { RoomLifecycleTests().roomsLoaded(server) == 0 })
    // Loaded again from storage: the move is there.
    let board = try APITests().call(server, "GET", "/api/v1/boards/idle")
    #expect(boardItems(board.json?["board"], list: "l") == ["b", "a"])
  }
}
