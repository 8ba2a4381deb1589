import Foundation
import ReorderTransport
import TestSupport
import Testing

/// The `reorder` executable as a user runs it: flags, the URL line, `/healthz`, and SIGTERM.
@Suite("reorder serve, the executable", .serialized)
struct ServeExecutableTests {
  /// Starts `reorder serve --port 0` with a throwaway data directory and returns it and its port.
  private func startServe(_ extra: [String] = []) throws -> (ChildProcess, Int) {
    let binary = try #require(ChildProcess.builtProduct("reorder"), "build the reorder product first (swift build)")
    let child = try ChildProcess(
      executable: binary, arguments: ["serve", "--port", "0", "--data", ":memory:", "--web", "web"] + extra)
    let line = try #require(child.waitForLine(timeout: 20) { $0.hasPrefix("Reorder is listening on ") })
    let port = try #require(
      line.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: CharacterSet(charactersIn: "/ "))) })
    return (child, port)
  }

  @Test("--port 0 prints one URL line with the chosen port, and /healthz answers")
  func urlLineAndHealth() throws {
    let (child, port) = try startServe()
    defer { child.terminate() }
    let urlLines = child.output.filter { $0.contains("http://127.0.0.1:") && $0.hasPrefix("Reorder is listening") }
    #expect(urlLines == ["Reorder is listening on http://127.0.0.1:\(port)/"])
    let response = try httpGet(port: port, rawPath: "/healthz")
    #expect(response.status == 200)
    #expect(response.text.contains("\"status\":\"ok\""))
  }

  @Test("SIGINT with clients connected: they get 1001, the process exits 0 within 2 s")
  func sigintClosesWith1001() throws {
    let (child, port) = try startServe()
    defer { child.terminate() }
    // A generous connect timeout: the whole suite runs in parallel and can keep the child waiting.
    let sockets = try (0..<3).map { _ in
      try WebSocket.connect("ws://127.0.0.1:\(port)/ws/shutdown-room", timeout: 20)
    }
    child.send(signal: SIGINT)
    let started = Date()
    let status = child.waitForExit(timeout: 2)
    #expect(status == 0, "exit status \(String(describing: status)) after \(Date().timeIntervalSince(started)) s")
    for socket in sockets {
      var code: UInt16?
      while code == nil {
        guard case .closed(let closeCode, _) = try socket.receive(timeout: 2) else { continue }
        code = closeCode ?? 0
      }
      #expect(code == 1001)
    }
  }

  @Test("SIGTERM drains: /healthz 503 first, upgrades 503, 1012 closes over --drain-seconds, exit 0")
  func sigtermDrains() throws {
    let (child, port) = try startServe(["--drain-seconds", "2"])
    defer { child.terminate() }
    // Raw sockets: lws' own client answers a 1012 with 1002 (it predates that code).
    let sockets = try (0..<10).map { _ in
      let raw = try RawSocket(port: port)
      #expect(try raw.websocketHandshake(path: "/ws/drain-room").contains(" 101 "))
      return raw
    }
    let started = Date()
    child.send(signal: SIGTERM)
    var health = try httpGet(port: port, rawPath: "/healthz")
    while health.status == 200 && Date().timeIntervalSince(started) < 2 {
      health = try httpGet(port: port, rawPath: "/healthz")
    }
    let firstCheck = Date().timeIntervalSince(started)
    #expect(health.status == 503 && health.text.contains("\"status\":\"draining\""), "\(health.text)")
    let refused = try RawSocket(port: port).websocketHandshake(path: "/ws/drain-room")
    #expect(refused == "HTTP/1.1 503 Service Unavailable", "\(refused)")
    let closes = CloseLog()
    // A thread per socket, all reading at once (a pool of two cores' width would read them in
    // turns and time its own turns, not the closes).
    let read = DispatchGroup()
    for socket in sockets {
      nonisolated(unsafe) let reader = socket  // only this thread reads it
      read.enter()
      Thread.detachNewThread {
        let code = try? reader.readCloseCode()
        closes.add(code: code, at: Date().timeIntervalSince(started))
        try? reader.writeFrame(opcode: 8, payload: [0x03, 0xF4])
        read.leave()
      }
    }
    read.wait()
    let closedAt = closes.entries.map(\.at)
    #expect(closes.entries.map(\.code) == Array(repeating: 1012, count: sockets.count))
    #expect(child.waitForExit(timeout: 6) == 0)
    let spread = (closedAt.max() ?? 0) - (closedAt.min() ?? 0)
    #expect(firstCheck < (closedAt.max() ?? 0), "/healthz said draining before the last close")
    #expect(spread >= 1, "closes over 2 s, not at once: \(closedAt)")
  }

  @Test("POST /api/v1/admin/drain with the API key drains the node like SIGTERM and exits 0")
  func drainThroughTheAPI() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let key = "drain-test-key-0123456789abcdefghijklmnopq"
    try directory.write("keys", key + "\n")
    let (child, port) = try startServe(["--drain-seconds", "1", "--api-key-file", directory.path + "/keys"])
    defer { child.terminate() }
    let socket = try RawSocket(port: port)
    #expect(try socket.websocketHandshake(path: "/ws/drain-api").contains(" 101 "))
    let anonymous = try httpRequest(port: port, method: "POST", rawPath: "/api/v1/admin/drain", body: [])
    #expect(anonymous.status == 401)
    let wrongMethod = try httpRequest(
      port: port, method: "GET", rawPath: "/api/v1/admin/drain", headers: ["Authorization": "Bearer \(key)"])
    #expect(wrongMethod.status == 405)
    let answer = try httpRequest(
      port: port, method: "POST", rawPath: "/api/v1/admin/drain", headers: ["Authorization": "Bearer \(key)"],
      body: [])
    #expect(answer.status == 202)
    #expect(answer.text.contains("\"status\":\"draining\""), "\(answer.text)")
    let health = try httpGet(port: port, rawPath: "/healthz")
    #expect(health.status == 503 && health.text.contains("draining"), "\(health.text)")
    #expect(try socket.readCloseCode() == 1012)
    try socket.writeFrame(opcode: 8, payload: [0x03, 0xF4])
    #expect(child.waitForExit(timeout: 6) == 0)
  }

  @Test("SIGHUP reloads the TLS certificate and API keys: new handshakes get the new ones, the open wss stays")
  func sighupReloads() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let (certificate, key) = try makeSelfSignedCertificate(in: directory.path)
    try directory.write("keys", "sighup-old-key-0123456789abcdefghijklmnop\n")
    let (child, port) = try startServe([
      "--tls-cert", certificate, "--tls-key", key, "--api-key-file", directory.path + "/keys",
    ])
    defer { child.terminate() }
    let first = try certificateFingerprint(ofFile: certificate)
    #expect(try presentedCertificateFingerprint(port: port) == first)
    let open = try WebSocket.connect("wss://127.0.0.1:\(port)/ws/hup", allowSelfSigned: true)
    defer { open.close() }

    let next = try TemporaryDirectory()
    defer { next.remove() }
    let (newCertificate, newKey) = try makeSelfSignedCertificate(in: next.path)
    for (path, source) in [(certificate, newCertificate), (key, newKey)] {
      try FileManager.default.removeItem(atPath: path)
      try FileManager.default.copyItem(atPath: source, toPath: path)
    }
    child.send(signal: SIGHUP)
    #expect(child.waitForLine(timeout: 10) { $0.contains(" reloaded") } != nil, "\(child.output)")
    let second = try certificateFingerprint(ofFile: certificate)
    #expect(second != first)
    #expect(try presentedCertificateFingerprint(port: port) == second)
    open.send(##"{"type":"hello","room":"hup","client":"h","name":"H","color":"#123456"}"##)
    let welcome = try open.receive(timeout: 10)
    guard case .text(let text) = welcome else {
      Issue.record("the wss opened before the reload got \(welcome)")
      return
    }
    #expect(text.contains("\"type\":\"welcome\""), "\(text)")

    try directory.write("keys", "short\n")
    child.send(signal: SIGHUP)
    #expect(child.waitForLine(timeout: 10) { $0.contains("reload failed") } != nil, "\(child.output)")
    #expect(try presentedCertificateFingerprint(port: port) == second, "a failed reload changes nothing")
    #expect(child.output.allSatisfy { !$0.contains("stopped") }, "SIGHUP does not stop the server")
  }

  @Test("a wrong flag or value is explained and exits with status 2")
  func usageErrorsExit2() throws {
    let binary = try #require(ChildProcess.builtProduct("reorder"))
    for arguments in [["serve", "--bogus"], ["serve", "--port", "http"], ["serve", "--tls-cert", "x.pem"], ["nope"]] {
      let child = try ChildProcess(executable: binary, arguments: arguments)
      #expect(child.waitForExit(timeout: 10) == 2, "\(arguments)")
      #expect(child.output.contains { $0.contains("reorder") }, "\(arguments) printed \(child.output)")
    }
  }

  @Test("every flag can come from its REORDER_* environment variable")
  func environmentVariables() throws {
    let binary = try #require(ChildProcess.builtProduct("reorder"))
    let bad = try ChildProcess(executable: binary, arguments: ["serve"], environment: ["REORDER_PORT": "70000"])
    #expect(bad.waitForExit(timeout: 10) == 2)
    #expect(bad.output.contains { $0.contains("REORDER_PORT") })
    let good = try ChildProcess(
      executable: binary, arguments: ["serve", "--data", ":memory:"],
      environment: ["REORDER_PORT": "0", "REORDER_LOG_FORMAT": "json"])
    defer { good.terminate() }
    #expect(good.waitForLine(timeout: 20) { $0.hasPrefix("Reorder is listening on ") } != nil)
    #expect(good.output.contains { $0.hasPrefix("{") && $0.contains("\"level\"") })
  }

  @Test("serve works from any working directory: the web client beside the executable is found")
  func servesFromAnotherDirectory() throws {
    let binary = try #require(ChildProcess.builtProduct("reorder"))
    let elsewhere = try TemporaryDirectory()
    defer { elsewhere.remove() }
    let child = try ChildProcess(
      executable: binary, arguments: ["serve", "--port", "0", "--data", ":memory:"], currentDirectory: elsewhere.path)
    defer { child.terminate() }
    let line = try #require(child.waitForLine(timeout: 20) { $0.hasPrefix("Reorder is listening on ") })
    let port = try #require(
      line.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: CharacterSet(charactersIn: "/ "))) })
    let page = try httpGet(port: port, rawPath: "/")
    #expect(page.status == 200)
    #expect(page.text.contains("<title>"))
  }

  @Test("a bad --node-id is explained and exits with status 2")
  func nodeID() throws {
    let binary = try #require(ChildProcess.builtProduct("reorder"))
    let bad = try ChildProcess(executable: binary, arguments: ["serve", "--node-id", "Not_Valid"])
    #expect(bad.waitForExit(timeout: 10) == 2)
    #expect(bad.output.contains { $0.contains("--node-id") })
  }
}

/// Close codes and the seconds they arrived at, from several threads.
private final class CloseLog: @unchecked Sendable {
  private let lock = NSLock()
  private var list: [(code: UInt16?, at: Double)] = []

  func add(code: UInt16?, at: Double) { lock.withLock { list.append((code, at)) } }
  var entries: [(code: UInt16?, at: Double)] { lock.withLock { list } }
}
