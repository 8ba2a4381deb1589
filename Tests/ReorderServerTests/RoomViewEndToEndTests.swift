import Foundation
import ReorderRooms
import TestSupport
import Testing

/// `reorder serve` on SQLite: a room unloaded with its final snapshot (which keeps the board's
/// JSON) reopens as a view for the next join, and the first op upgrades it (`Room+View.swift`).
@Suite("Rooms opened as views, end to end", .serialized)
struct RoomViewEndToEndTests {
  func loadedLines(_ server: ServerProcess, view: Bool) -> Int {
    server.child.output.filter { $0.contains("room loaded") && $0.contains("view=\(view)") }.count
  }

  @Test("an unloaded room reopens as a view from the stored board; an op upgrades it and reaches everyone")
  func reopenAsViewThenUpgrade() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let server = try ServerProcess.start(data: directory.path, extra: ["--room-idle-seconds", "0"])
    defer { server.child.terminate() }
    let writer = try RoomClient.join(port: server.port, room: "v", client: "writer")
    writer.op("w:0", Ops.createList("l"))
    var previous: String?
    for item in ["a", "b", "c"] {
      writer.op("w:\(item)", Ops.insert(item, list: "l", after: previous))
      previous = item
    }
    for _ in 0..<4 { _ = try writer.next(type: "applied") }
    writer.close()
    #expect(waitUntil(timeout: 10) { server.child.output.contains { $0.contains("room unloaded") } })

    let viewer = try RoomClient.join(port: server.port, room: "v", client: "viewer")
    #expect(boardItems(viewer.welcome["board"], list: "l") == ["a", "b", "c"])
    #expect(viewer.welcome["seq"] == .number(4))
    #expect(waitUntil(timeout: 10) { loadedLines(server, view: true) == 1 })
    let editor = try RoomClient.join(port: server.port, room: "v", client: "editor")
    #expect(boardItems(editor.welcome["board"], list: "l") == ["a", "b", "c"])
    editor.op("e:1", Ops.move("a", list: "l", after: "c"))
    let applied = try viewer.next(type: "applied")
    #expect(applied["seq"] == .number(5))
    #expect(try editor.next(type: "applied")["id"] == .string("e:1"))
    viewer.close()
    editor.close()
    #expect(waitUntil(timeout: 10) { server.child.output.filter { $0.contains("room unloaded") }.count == 2 })

    // Unloaded again with a final snapshot of the moved board: a view of that.
    let last = try RoomClient.join(port: server.port, room: "v", client: "last")
    #expect(boardItems(last.welcome["board"], list: "l") == ["b", "c", "a"])
    #expect(last.welcome["seq"] == .number(5))
    #expect(waitUntil(timeout: 10) { loadedLines(server, view: true) == 2 })
    #expect(loadedLines(server, view: false) == 1, "only the first load, of a room with nothing stored, was full")
  }
}
