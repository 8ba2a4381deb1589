import Foundation
import ReorderRooms
import TestSupport
import Testing

/// `reorder backup` and `reorder export` as a user runs them, next to a running server.
@Suite("reorder backup and export", .serialized)
struct BackupExportTests {
  func run(_ arguments: [String]) throws -> (status: Int32?, output: [String]) {
    let binary = try #require(ChildProcess.builtProduct("reorder"))
    let child = try ChildProcess(executable: binary, arguments: arguments)
    let status = child.waitForExit(timeout: 30)
    return (status, child.output)
  }

  @Test("a backup taken while the server runs opens and holds every board; export prints a board as JSON")
  func backupWhileRunning() throws {
    let binary = try #require(ChildProcess.builtProduct("reorder"))
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let data = directory.path + "/data"
    let serve = try ChildProcess(
      executable: binary, arguments: ["serve", "--port", "0", "--data", data, "--demo", "--web", ""])
    defer { serve.terminate() }
    let line = try #require(serve.waitForLine(timeout: 20) { $0.hasPrefix("Reorder is listening on ") })
    let port = try #require(
      line.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: CharacterSet(charactersIn: "/ "))) })
    let editor = try RoomClient.join(port: port, room: "cities", client: "e")
    editor.op("e:1", Ops.move("paris", list: "cities"))
    _ = try editor.applied(id: "e:1")

    let copyDirectory = directory.path + "/restored"
    try FileManager.default.createDirectory(atPath: copyDirectory, withIntermediateDirectories: true)
    let backup = try run(["backup", "--data", data, "--out", copyDirectory + "/reorder.sqlite3"])
    #expect(backup.status == 0, "\(backup.output)")
    let again = try run(["backup", "--data", data, "--out", copyDirectory + "/reorder.sqlite3"])
    #expect(again.status == 1, "an existing file is not overwritten")

    for room in ["food", "home", "numbers", "cities"] {
      let live = try run(["export", "--data", data, room])
      let restored = try run(["export", "--data", copyDirectory, room])
      #expect(live.status == 0 && restored.status == 0, "\(room): \(live.output) \(restored.output)")
      let liveJSON = try JSONValue.parse(Array((live.output.last ?? "").utf8))
      let restoredJSON = try JSONValue.parse(Array((restored.output.last ?? "").utf8))
      #expect(liveJSON["room"] == .string(room))
      #expect(liveJSON["board"]?["lists"] != nil)
      #expect(restoredJSON == liveJSON, "\(room) differs in the backup")
    }
    let cities = try JSONValue.parse(
      Array((try run(["export", "--data", copyDirectory, "cities"]).output.last ?? "").utf8))
    guard case .array(let lists)? = cities["board"]?["lists"], case .array(let items)? = lists.first?["items"] else {
      Issue.record("no cities list")
      return
    }
    #expect(items.last?["id"] == .string("paris"), "the move made before the backup is in it")
    let missing = try run(["export", "--data", data, "no-such-board"])
    #expect(missing.status == 1)
    #expect(missing.output.contains { $0.contains("no board named") })
    editor.close()
  }
}
