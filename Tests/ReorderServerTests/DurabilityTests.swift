import Foundation
import ReorderRooms
import ReorderTransport
import TestSupport
import Testing

/// The `reorder` executable run as a child process on a data directory.
struct ServerProcess {
  let child: ChildProcess
  let port: Int

  /// Starts `reorder serve --port 0 --data DIR`; fails clearly when the executable is not built.
  static func start(data: String, extra: [String] = []) throws -> ServerProcess {
    guard let executable = ChildProcess.builtProduct("reorder") else {
      throw ClientTimeout(description: "the reorder executable is not built: run `swift build --product reorder` first")
    }
    let child = try ChildProcess(
      executable: executable,
      arguments: ["serve", "--port", "0", "--data", data, "--web", "", "--max-ops-per-second", "100000"] + extra)
    guard let line = child.waitForLine(timeout: 20, where: { $0.contains("Reorder is listening on") }),
      let portText = line.split(separator: ":").last?.split(separator: "/").first, let port = Int(portText)
    else {
      child.terminate()
      throw ClientTimeout(description: "reorder did not print its URL line; output: \(child.output.suffix(5))")
    }
    return ServerProcess(child: child, port: port)
  }
}

@Suite("Durability across SIGKILL", .serialized)
struct DurabilityTests {
  @Test("Every acknowledged op survives SIGKILL; since catch-up is exact; re-sent ops apply once")
  func sigkillAfterAcks() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let first = try ServerProcess.start(data: directory.path)
    var acked: [(seq: UInt64, id: String)] = []
    do {
      defer { first.child.terminate() }
      let a = try RoomClient.join(port: first.port, room: "d", client: "writer")
      a.op("w:0", Ops.createList("l"))
      for i in 1...1_000 { a.op("w:\(i)", Ops.insert("n\(i)", list: "l")) }
      // Kill as soon as 100 acks arrived, while the rest are in flight.
      while acked.count < 100 {
        let applied = try a.next(type: "applied", timeout: 20)
        acked.append((UInt64(applied["seq"]?.numberValue ?? 0), applied["id"]?.stringValue ?? ""))
      }
      first.child.send(signal: SIGKILL)
      #expect(first.child.waitForExit(timeout: 10) != nil)
      // Acks already on the wire count too.
      while let applied = try? a.next(type: "applied", timeout: 1) {
        acked.append((UInt64(applied["seq"]?.numberValue ?? 0), applied["id"]?.stringValue ?? ""))
      }
    }
    #expect(acked.map(\.seq) == Array(1...UInt64(acked.count)))

    let second = try ServerProcess.start(data: directory.path)
    defer { second.child.terminate() }
    let reader = try RoomClient.join(port: second.port, room: "d", client: "reader")
    let survived = boardItems(reader.welcome["board"], list: "l")
    let ackedItems = acked.dropFirst().map { "n" + $0.id.dropFirst(2) }
    #expect(Array(survived.prefix(ackedItems.count)) == ackedItems, "acknowledged ops lost or reordered")
    #expect(survived == (1...survived.count).map { "n\($0)" })
    let durableSeq = UInt64(reader.welcome["seq"]?.numberValue ?? 0)
    #expect(durableSeq >= UInt64(acked.count))

    // A client that saw up to seq S catches up with exactly S+1 … durableSeq.
    let since = UInt64(acked.count) - 50
    let back = try RoomClient.join(
      port: second.port, room: "d", client: "writer", since: since, epoch: reader.welcome["epoch"])
    guard case .array(let missed)? = back.welcome["ops"] else {
      Issue.record("no catch-up ops in the welcome")
      return
    }
    #expect(missed.map { UInt64($0["seq"]?.numberValue ?? 0) } == Array((since + 1)...durableSeq))
    #expect(missed.prefix(50).map { $0["id"]?.stringValue ?? "" } == acked.suffix(50).map(\.id))

    // Re-sending everything applies each op once; acknowledged ones keep their seq.
    for i in 1...1_000 { back.op("w:\(i)", Ops.insert("n\(i)", list: "l")) }
    var seqs: [String: UInt64] = [:]
    for i in 1...1_000 {
      let applied = try back.applied(id: "w:\(i)", timeout: 20)
      seqs["w:\(i)"] = UInt64(applied["seq"]?.numberValue ?? 0)
    }
    print("durability: \(acked.count) acked before SIGKILL, \(survived.count) inserts durable after restart")
    for (seq, id) in acked.dropFirst() { #expect(seqs[id] == seq, "\(id) was acknowledged again with another seq") }
    let final = try RoomClient.join(port: second.port, room: "d", client: "final")
    #expect(boardItems(final.welcome["board"], list: "l") == (1...1_000).map { "n\($0)" })
    #expect(final.welcome["seq"] == .number(1_001))
  }
}

@Suite("Server logging", .serialized)
struct LoggingTests {
  @Test("--log-format json writes one JSON object per line for room and connection events")
  func jsonLogLines() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let server = try ServerProcess.start(data: directory.path, extra: ["--log-format", "json", "--log-level", "debug"])
    defer { server.child.terminate() }
    let client = try RoomClient.join(port: server.port, room: "logs", client: "l")
    client.send("not json")
    _ = try client.next(type: "error")
    client.close()
    let left = server.child.waitForLine(timeout: 10) { $0.contains("\"left\"") }
    #expect(left != nil)
    let lines = server.child.output.filter { $0.hasPrefix("{") }
    for event in ["room loaded", "joined", "bad frame", "left"] {
      let line = lines.first { $0.contains("\"\(event)\"") }
      #expect(line != nil, "no \(event) line")
      #expect((try? JSONValue.parse(line ?? "")) != nil, "not JSON: \(line ?? "")")
    }
  }
}
