import Foundation
import ReorderRooms
import TestSupport
import Testing

@testable import ReorderServer
@testable import ReorderStore

/// The data directory on a small tmpfs that the test fills: ops are refused `storage_full`, the
/// room and its members go on, and it recovers by itself once space is freed (docs/RELIABILITY.md,
/// "A full disk").
@Suite("A full disk, end to end", .serialized)
struct DiskFullTests {
  static func configure(_ c: inout ServerConfiguration) {
    c.snapshotEvery = 50
    c.maxOpsPerSecond = 100_000
  }

  /// Moves acknowledged before the disk is filled.
  static let movesBeforeFull = 150
  /// Ops sent while the disk is full before the test gives up waiting for a refusal.
  static let maxOpsToFill = 5_000

  @Test(
    "Ops are rejected storage_full, joins see the durable board, drags flow, and once space is freed ops apply without a reconnect; a restart has every acknowledged op",
    .enabled(if: Tmpfs.canMount, "mounting a tmpfs is not allowed here (it needs root): the full-disk test is skipped")
  )
  func fullDiskAndRecovery() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let mount = try Tmpfs(at: directory.path + "/mnt", megabytes: 4)
    defer { mount.unmount() }
    let data = mount.path + "/data"
    let filler = mount.path + "/filler"

    var model: ClientModel
    do {
      let server = try TestServer(data: data, configure: Self.configure)
      defer { server.server.shutdown() }
      let writer = try RoomClient.join(port: server.port, client: "w")
      model = ClientModel(welcome: writer.welcome)
      #expect(try submit(writer, "l", Ops.createList("l"), &model) == .applied)
      for i in 0..<10 {
        let op = Ops.insert("i\(i)", list: "l", after: i == 0 ? nil : "i\(i - 1)")
        #expect(try submit(writer, "i\(i)", op, &model) == .applied)
      }
      // Enough acknowledged ops for a few snapshots (every 50) before the disk fills.
      for n in 0..<Self.movesBeforeFull {
        let op = Ops.move("i\(n % 10)", list: "l", after: "i\((n + 7) % 10)")
        #expect(try submit(writer, "m\(n)", op, &model) == .applied)
      }

      try Tmpfs.fill(filler)
      var refused: String?
      for n in 0..<Self.maxOpsToFill {
        let outcome = try submit(writer, "f\(n)", Ops.move("i\(n % 10)", list: "l", after: "i\((n + 3) % 10)"), &model)
        if case .rejected(let code) = outcome {
          refused = code
          break
        }
      }
      #expect(refused == "storage_full", "no op was refused with the disk full")
      #expect(writer.closeEvent == nil, "the writer stays connected")

      // A second client joins the loaded room and is welcomed with the durable board.
      let reader = try RoomClient.join(port: server.port, client: "r")
      #expect(ClientModel(welcome: reader.welcome) == model, "the welcome is not the acknowledged board")

      // Still full: every op fails the same way, and neither client sees it.
      for n in 0..<3 {
        let outcome = try submit(writer, "full\(n)", Ops.move("i4", list: "l", after: "i\(n)"), &model)
        #expect(outcome == .rejected("storage_full"))
      }
      // A burst: several ops pending when the append fails, and the store's refusals of the writes
      // queued behind it; every op is answered, each one refused.
      // A join is welcomed only once a rebuild under way is over: the burst meets a room taking ops.
      try RoomClient.join(port: server.port, client: "p").close()
      let burst = (0..<20).map { "burst\($0)" }
      for (n, id) in burst.enumerated() { writer.op(id, Ops.move("i\(n % 10)", list: "l", after: "i\((n + 1) % 10)")) }
      for id in burst {
        let answer = try writer.next(timeout: 20) { $0["id"] == .string(id) }
        #expect(answer["type"] == .string("rejected") && answer["code"] == .string("storage_full"), "\(id): \(answer)")
      }

      // Presence flows both ways.
      writer.send(#"{"type":"drag","phase":"start","item":"i0","list":"l","index":0,"x":0.1,"y":0.2}"#)
      let seenByReader = try reader.next(type: "drags")
      #expect(seenByReader.jsonText.contains(writer.session))
      reader.send(#"{"type":"drag","phase":"start","item":"i1","list":"l","index":1,"x":0.5,"y":0.5}"#)
      let seenByWriter = try writer.next(type: "drags")
      #expect(seenByWriter.jsonText.contains(reader.session))

      // Space freed: ops apply again on the same connections (a refusal meanwhile is a rebuild
      // still under way, bounded by the attempts).
      try FileManager.default.removeItem(atPath: filler)
      var recovered = false
      for attempt in 0..<100 where !recovered {
        let outcome = try submit(writer, "after\(attempt)", Ops.move("i2", list: "l", after: "i5"), &model)
        recovered = outcome == .applied
        if !recovered { usleep(20_000) }
      }
      #expect(recovered, "no op applied after the space was freed")
      let last = try submit(writer, "last", Ops.move("i3", list: "l"), &model)
      #expect(last == .applied)
      var readerModel = ClientModel(welcome: reader.welcome)
      _ = try reader.follow(&readerModel, until: model.seq)
      #expect(readerModel == model, "the reader's board differs from the writer's")
      #expect(writer.closeEvent == nil && reader.closeEvent == nil, "nobody was disconnected")
      writer.close()
      reader.close()
    }

    // Every acknowledged op survives a restart, stored without gaps.
    let server = try TestServer(data: data, configure: Self.configure)
    defer { server.server.shutdown() }
    let after = try RoomClient.join(port: server.port, client: "z")
    #expect(ClientModel(welcome: after.welcome) == model, "the board after the restart is not the acknowledged one")
    let stored = try #require(server.server.store).ops(room: "t", after: 0, limit: 100_000).map(\.seq)
    #expect(stored == Array(1...model.seq), "stored seqs are not exactly the acknowledged ones")
    after.close()
  }

  @Test(
    "Snapshots refused for a full disk (a fault point): the ops after each are refused storage_full, nobody is disconnected, and every acknowledged op survives a restart"
  )
  func snapshotsRefusedForFullDisk() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let data = directory.path + "/data"
    let configure: (inout ServerConfiguration) -> Void = {
      $0.snapshotEvery = 20
      $0.maxOpsPerSecond = 100_000
    }
    var model: ClientModel
    do {
      let server = try TestServer(data: data, configure: configure)
      defer { server.server.shutdown() }
      let writer = try RoomClient.join(port: server.port, client: "w")
      model = ClientModel(welcome: writer.welcome)
      #expect(try submit(writer, "l", Ops.createList("l"), &model) == .applied)
      for i in 0..<10 {
        let op = Ops.insert("i\(i)", list: "l", after: i == 0 ? nil : "i\(i - 1)")
        #expect(try submit(writer, "i\(i)", op, &model) == .applied)
      }
      for n in 0..<28 {
        _ = try submit(writer, "m\(n)", Ops.move("i\(n % 10)", list: "l", after: "i\((n + 4) % 10)"), &model)
      }
      #expect(model.seq == 39)
      try setSnapshotFault(of: server) { at in at >= 40 ? .diskFull(operation: "save a snapshot (test fault)") : nil }
      let burst = (0..<30).map { "b\($0)" }
      for (n, id) in burst.enumerated() { writer.op(id, Ops.move("i\(n % 10)", list: "l", after: "i\((n + 6) % 10)")) }
      var refused: [String] = []
      for id in burst {
        let answer = try writer.next(timeout: 20) { $0["id"] == .string(id) }
        if answer["type"] == .string("applied") {
          model.apply(answer)
        } else {
          #expect(answer["code"] == .string("storage_full"), "\(id): \(answer)")
          refused.append(id)
        }
      }
      #expect(model.seq >= 40, "the op whose snapshot failed was stored before it")
      #expect(writer.closeEvent == nil)
      // Space again: the refused ops, sent again with their ids, apply.
      try setSnapshotFault(of: server) { _ in nil }
      for id in refused {
        var outcome = Outcome.rejected("")
        for _ in 0..<100 where outcome != .applied {
          outcome = try submit(writer, id, Ops.move("i0", list: "l", after: "i9"), &model)
          if outcome != .applied { usleep(20_000) }
        }
        #expect(outcome == .applied, "\(id) was not applied once snapshots were stored again")
      }
      let reader = try RoomClient.join(port: server.port, client: "r")
      #expect(ClientModel(welcome: reader.welcome) == model)
      writer.close()
      reader.close()
    }
    let server = try TestServer(data: data, configure: configure)
    defer { server.server.shutdown() }
    let after = try RoomClient.join(port: server.port, client: "z")
    #expect(ClientModel(welcome: after.welcome) == model, "the board after the restart is not the acknowledged one")
    let stored = try #require(server.server.store).ops(room: "t", after: 0, limit: 100_000).map(\.seq)
    #expect(stored == Array(1...model.seq), "stored seqs are not exactly the acknowledged ones")
    after.close()
  }

  /// Sets the store's snapshot fault point (a snapshot's write fails alone, with the error given).
  private func setSnapshotFault(of server: TestServer, _ fault: @escaping @Sendable (UInt64) -> StoreError?) throws {
    let store = try #require(server.server.store)
    let writer = store.writer
    _ = writer.enqueue(.barrier({ writer.snapshotFault = { _, at in fault(at) } }))
    store.flush()
  }

  enum Outcome: Equatable {
    case applied
    case rejected(String)
  }

  /// Sends one op and waits for its answer; an `applied` is applied to `model`.
  private func submit(_ client: RoomClient, _ id: String, _ op: JSONValue, _ model: inout ClientModel) throws
    -> Outcome
  {
    client.op(id, op)
    let answer = try client.next(timeout: 20) { frame in
      (frame["type"] == .string("applied") || frame["type"] == .string("rejected")) && frame["id"] == .string(id)
    }
    guard answer["type"] == .string("applied") else { return .rejected(answer["code"]?.stringValue ?? "") }
    model.apply(answer)
    return .applied
  }
}

/// A tmpfs mounted for one test (the tests run as root here), unmounted by `unmount()`.
struct Tmpfs {
  let path: String

  /// Mounts a tmpfs of `megabytes` at `path` (created).
  init(at path: String, megabytes: Int) throws {
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    let status = Tmpfs.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", path])
    guard status == 0 else { throw TmpfsError(description: "mount -t tmpfs at \(path) exited \(status)") }
    self.path = path
  }

  func unmount() {
    let status = Tmpfs.run("/bin/umount", [path])
    if status != 0 { Issue.record("umount \(path) exited \(status)") }
  }

  /// Whether this process may mount a tmpfs (tried once, in a directory of its own).
  static let canMount: Bool = {
    guard let directory = try? TemporaryDirectory(prefix: "reorder-mount-probe") else { return false }
    defer { directory.remove() }
    guard let mount = try? Tmpfs(at: directory.path + "/mnt", megabytes: 1) else { return false }
    mount.unmount()
    return true
  }()

  /// Writes zeros to `path` until the filesystem has no space left (ENOSPC).
  static func fill(_ path: String) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else { throw TmpfsError(description: "cannot create \(path): errno \(errno)") }
    defer { close(fd) }
    let chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let written = chunk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      if written < 0 {
        guard errno == ENOSPC else { throw TmpfsError(description: "writing \(path): errno \(errno)") }
        return
      }
      if written == 0 { return }
    }
  }

  private static func run(_ executable: String, _ arguments: [String]) -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    do { try process.run() } catch { return -1 }
    process.waitUntilExit()
    return process.terminationStatus
  }
}

struct TmpfsError: Error, CustomStringConvertible {
  var description: String
}
