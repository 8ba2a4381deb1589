import Foundation
import ReorderBasics
import ReorderTransport
import TestSupport
import XCTest

final class TLSTests: XCTestCase {
  func testWSSWorksWithASelfSignedCertificateMadeByOpenSSL() throws {
    let fixture = try ServerFixture(tls: true)
    defer { fixture.stop() }
    let socket = try WebSocket.connect(fixture.url("/ws/secure-room", secure: true), allowSelfSigned: true)
    socket.send("over tls")
    XCTAssertEqual(try receiveText(socket), "over tls")
    XCTAssertEqual(fixture.handler.opened.values.first, "secure-room")
    socket.close()
    XCTAssertThrowsError(try WebSocket.connect(fixture.url("/ws/plain"), timeout: 3), "plain ws to a TLS port")
  }

  func testHTTPSServesHealthzWhenCurlIsAvailable() throws {
    let curl = "/usr/bin/curl"
    try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: curl), "curl is not installed")
    let fixture = try ServerFixture(tls: true)
    defer { fixture.stop() }
    let process = Process()
    let output = Pipe()
    process.executableURL = URL(fileURLWithPath: curl)
    process.arguments = ["-sk", "--max-time", "10", "https://127.0.0.1:\(fixture.port)/healthz"]
    process.standardOutput = output
    try process.run()
    let body = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    XCTAssertTrue(String(decoding: body, as: UTF8.self).contains("\"status\":\"ok\""))
  }

  func testMismatchedTLSConfigurationIsRefusedClearly() {
    var configuration = TransportConfiguration()
    configuration.tlsCertificatePath = "/tmp/cert.pem"
    XCTAssertThrowsError(try WebSocketServer(configuration: configuration, handler: EchoHandler())) { error in
      XCTAssertTrue("\(error)".contains("both a TLS certificate and a private key"))
    }
  }

  func testUnreadableCertificateFailsToStart() throws {
    var configuration = TransportConfiguration()
    configuration.port = 0
    configuration.webRoot = nil
    configuration.tlsCertificatePath = "/nonexistent/cert.pem"
    configuration.tlsPrivateKeyPath = "/nonexistent/key.pem"
    let server = try WebSocketServer(configuration: configuration, handler: EchoHandler())
    XCTAssertThrowsError(try server.start())
  }
}

final class ShutdownTests: XCTestCase {
  func testShutdownFlushesQueuedDataThenClosesEveryClientWith1001() throws {
    let fixture = try ServerFixture()
    let sockets = try (0..<3).map { _ in try WebSocket.connect(fixture.url("/ws/room-1")) }
    XCTAssertTrue(waitUntil { fixture.server.connectionCount == 3 })
    let server = fixture.server
    let handler = fixture.handler
    server.post {
      for peer in handler.connections(in: "room-1") { server.send(Array("bye".utf8), to: peer) }
    }
    fixture.stop()
    for socket in sockets {
      XCTAssertEqual(try receiveText(socket), "bye")
      let close = try receiveClose(socket)
      XCTAssertEqual(close.code, 1001)
      XCTAssertEqual(close.reason, "server shutting down")
    }
    XCTAssertEqual(handler.closed.count, 3)
    XCTAssertFalse(server.isRunning)
    XCTAssertThrowsError(try WebSocket.connect(fixture.url("/ws/room-1"), timeout: 3))
  }

  func testShutdownIsIdempotentAndStartingTwiceIsAnError() throws {
    let fixture = try ServerFixture()
    XCTAssertThrowsError(try fixture.server.start()) { XCTAssertEqual($0 as? TransportError, .alreadyStarted) }
    fixture.stop()
    fixture.server.shutdown()
  }

  func testBindingABusyPortFailsWithAClearError() throws {
    let fixture = try ServerFixture()
    defer { fixture.stop() }
    var configuration = TransportConfiguration()
    configuration.port = fixture.port
    configuration.webRoot = nil
    let second = try WebSocketServer(configuration: configuration, handler: EchoHandler())
    XCTAssertThrowsError(try second.start()) { error in
      XCTAssertTrue("\(error)".contains("could not listen on 127.0.0.1:\(fixture.port)"), "\(error)")
    }
  }

  func testClientReportsConnectionFailuresAsClosedEvents() throws {
    XCTAssertThrowsError(try WebSocket.connect("ws://127.0.0.1:\(freePort())/ws/x", timeout: 5))
    XCTAssertThrowsError(try WebSocket.connect("http://127.0.0.1/ws/x", timeout: 5)) { error in
      XCTAssertTrue("\(error)".contains("invalid websocket URL"), "\(error)")
    }
    let plainOnly = try WebSocketClientContext(supportsTLS: false)
    defer { plainOnly.shutdown() }
    XCTAssertThrowsError(try WebSocket.connect("wss://127.0.0.1:1/ws/x", on: plainOnly)) { error in
      XCTAssertTrue("\(error)".contains("without TLS support"), "\(error)")
    }
  }
}

final class KeepaliveAndBoundsTests: XCTestCase {
  func testSilentPeersAreDroppedWhilePingedPeersStay() throws {
    let fixture = try ServerFixture {
      $0.pingIntervalSeconds = 1
      $0.idleTimeoutSeconds = 4  // room for a loaded machine: the answering peer has 3 s to pong
    }
    defer { fixture.stop() }
    let silent = try RawSocket(port: fixture.port)
    XCTAssertTrue(try silent.websocketHandshake(path: "/ws/room-1").contains("101"))
    XCTAssertTrue(waitUntil { fixture.handler.opened.count == 1 })
    let silentID = try XCTUnwrap(fixture.handler.opened.keys.first)
    let alive = try WebSocket.connect(fixture.url("/ws/room-1"))
    XCTAssertTrue(waitUntil { fixture.handler.opened.count == 2 })
    XCTAssertTrue(waitUntil(timeout: 15) { fixture.handler.closed.contains(silentID) }, "silent peer not dropped")
    // The other connection was just as idle; lws pinged it, it answered, so it is still served.
    alive.send("still alive")
    XCTAssertEqual(try receiveText(alive), "still alive")
    XCTAssertEqual(fixture.handler.closed, [silentID])
  }

  func testASilentPeerIsPingedOnceAndDroppedWhileAPeerThatTalksOrPongsStays() throws {
    let fixture = try ServerFixture {
      $0.pingIntervalSeconds = 1
      $0.idleTimeoutSeconds = 3
    }
    defer { fixture.stop() }
    let silent = try RawSocket(port: fixture.port)
    XCTAssertTrue(try silent.websocketHandshake(path: "/ws/room-1").contains("101"))
    let talking = try RawSocket(port: fixture.port)
    XCTAssertTrue(try talking.websocketHandshake(path: "/ws/room-1").contains("101"))
    let answering = try RawSocket(port: fixture.port)
    XCTAssertTrue(try answering.websocketHandshake(path: "/ws/room-1").contains("101"))
    XCTAssertTrue(waitUntil { fixture.handler.opened.count == 3 })
    // One answers each ping with its pong (as RFC 6455 clients do), 4 times: longer than the
    // idle timeout.
    let pongs = Locked(0)
    nonisolated(unsafe) let answerer = answering  // used by the thread alone until it is done
    Thread.detachNewThread {
      while pongs.withLock({ $0 }) < 4, let frame = try? answerer.readFrame() {
        guard frame.opcode == 9, (try? answerer.writeFrame(opcode: 10, payload: frame.payload)) != nil else { continue }
        pongs.withLock { $0 += 1 }
      }
    }
    // The other one sends a message every half second and never answers a ping.
    let talked = DispatchSemaphore(value: 0)
    let talkFailed = Locked(false)
    nonisolated(unsafe) let talker = talking  // used by the thread alone until it signals
    Thread.detachNewThread {
      for n in 0..<9 {
        do { try talker.writeFrame(opcode: 1, payload: Array("m\(n)".utf8)) } catch {
          talkFailed.withLock { $0 = true }
        }
        Thread.sleep(forTimeInterval: 0.5)
      }
      talked.signal()
    }
    // The silent one gets a ping once it was silent for the interval, and no second one before it
    // is dropped.
    let ping = try XCTUnwrap(try silent.readFrame())
    XCTAssertEqual(ping.opcode, 9)
    XCTAssertFalse(ping.payload.isEmpty)
    XCTAssertNotNil(UInt64(String(decoding: ping.payload, as: UTF8.self)), "decimal digits")
    XCTAssertNil(try silent.readFrame(), "one ping, then the drop (end of stream)")
    XCTAssertEqual(talked.wait(timeout: .now() + 15), .success)
    XCTAssertFalse(talkFailed.withLock { $0 })
    try talking.writeFrame(opcode: 1, payload: Array("still here".utf8))
    XCTAssertTrue(waitUntil { fixture.handler.received.contains { $0.1 == Array("still here".utf8) } })
    XCTAssertTrue(waitUntil(timeout: 15) { pongs.withLock { $0 } == 4 })
    try answering.writeFrame(opcode: 1, payload: Array("answered".utf8))
    XCTAssertTrue(waitUntil { fixture.handler.received.contains { $0.1 == Array("answered".utf8) } })
    XCTAssertEqual(fixture.handler.closed.count, 1)
  }

  func testShutdownIsBoundedEvenWhenAClientNeverReads() throws {
    let fixture = try ServerFixture {
      $0.maxQueueBytes = 8 << 20
      $0.socketSendBufferBytes = 4_096
    }
    let slow = try RawSocket(port: fixture.port, receiveBufferBytes: 4_096)
    XCTAssertTrue(try slow.websocketHandshake(path: "/ws/room-1").contains("101"))
    XCTAssertTrue(waitUntil { fixture.handler.opened.count == 1 })
    let id = try XCTUnwrap(fixture.handler.opened.keys.first)
    let server = fixture.server
    server.post {
      for _ in 0..<256 { server.send([UInt8](repeating: 0x61, count: 16_384), to: id) }
    }
    server.shutdown(timeoutSeconds: 0.3)
    XCTAssertFalse(server.isRunning)
    XCTAssertEqual(fixture.handler.closed, [id])
    fixture.stop()
  }

  func testListensOnLocalhostAndAnyAddress() throws {
    for host in ["localhost", "0.0.0.0"] {
      let fixture = try ServerFixture { $0.host = host }
      defer { fixture.stop() }
      XCTAssertEqual(try httpGet(port: fixture.port, rawPath: "/healthz").status, 200, host)
    }
  }
}
