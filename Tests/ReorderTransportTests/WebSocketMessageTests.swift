import Foundation
import ReorderTransport
import TestSupport
import XCTest

final class WebSocketMessageTests: XCTestCase {
  func testMessageSentInFiveFragmentsArrivesWhole() throws {
    let fixture = try ServerFixture()
    defer { fixture.stop() }
    let socket = try WebSocket.connect(fixture.url("/ws/room-1"))
    let parts = ["alpha-", "bravo-", "charlie-", "delta-", "echo"]
    socket.send(fragments: parts)
    XCTAssertEqual(try receiveText(socket), parts.joined())
    XCTAssertEqual(fixture.handler.received.count, 1)
    XCTAssertEqual(fixture.handler.received.first.map { String(decoding: $0.1, as: UTF8.self) }, parts.joined())
  }

  func testLargeMessageUnderTheLimitRoundTrips() throws {
    let fixture = try ServerFixture()
    defer { fixture.stop() }
    let socket = try WebSocket.connect(fixture.url("/ws/room-1"))
    let big = String(repeating: "x", count: 65_536)
    socket.send(big)
    XCTAssertEqual(try receiveText(socket), big)
  }

  func testMessageOverTheLimitClosesWith1009AndAReason() throws {
    let fixture = try ServerFixture { $0.maxMessageBytes = 1_024 }
    defer { fixture.stop() }
    let socket = try WebSocket.connect(fixture.url("/ws/room-1"))
    socket.send(String(repeating: "y", count: 1_025))
    let close = try receiveClose(socket)
    XCTAssertEqual(close.code, 1009)
    XCTAssertTrue(close.reason.contains("message too large"), close.reason)
    XCTAssertTrue(fixture.handler.received.isEmpty)
    XCTAssertTrue(waitUntil { fixture.handler.closed.count == 1 })
  }

  func testFragmentedMessageOverTheLimitClosesWith1009() throws {
    let fixture = try ServerFixture { $0.maxMessageBytes = 1_000 }
    defer { fixture.stop() }
    let socket = try WebSocket.connect(fixture.url("/ws/room-1"))
    socket.send(fragments: Array(repeating: String(repeating: "z", count: 300), count: 5))
    XCTAssertEqual(try receiveClose(socket).code, 1009)
    XCTAssertTrue(fixture.handler.received.isEmpty)
  }

  func testInvalidUTF8TextIsClosedWith1007AndTheServerKeepsServing() throws {
    let fixture = try ServerFixture()
    defer { fixture.stop() }
    let raw = try RawSocket(port: fixture.port)
    XCTAssertTrue(try raw.websocketHandshake(path: "/ws/room-1").contains("101"))
    try raw.writeFrame(opcode: 1, payload: [0x61, 0xC3, 0x28])
    XCTAssertEqual(try raw.readCloseCode(), 1007)
    XCTAssertTrue(fixture.handler.received.isEmpty)
    let socket = try WebSocket.connect(fixture.url("/ws/room-1"))
    socket.send("fine")
    XCTAssertEqual(try receiveText(socket), "fine")
  }

  func testBinaryMessagesReachTheHandlerMarkedBinary() throws {
    let fixture = try ServerFixture()
    defer { fixture.stop() }
    let raw = try RawSocket(port: fixture.port)
    XCTAssertTrue(try raw.websocketHandshake(path: "/ws/room-1").contains("101"))
    try raw.writeFrame(opcode: 2, payload: [0, 1, 2, 255])
    XCTAssertTrue(waitUntil { fixture.handler.binaryCount == 1 })
    XCTAssertEqual(fixture.handler.received.first?.1, [0, 1, 2, 255])
  }

  func testPostRunsOnTheServiceThreadAndSendReachesTheClient() throws {
    let fixture = try ServerFixture()
    defer { fixture.stop() }
    let socket = try WebSocket.connect(fixture.url("/ws/room-1"))
    XCTAssertTrue(waitUntil { fixture.handler.opened.count == 1 })
    let id = try XCTUnwrap(fixture.handler.opened.keys.first)
    let server = fixture.server
    server.post {
      server.send(Array("from elsewhere".utf8), to: id)
      server.send(Array("presence".utf8), to: id, priority: .presence)
    }
    XCTAssertEqual(try receiveText(socket), "from elsewhere")
    XCTAssertEqual(try receiveText(socket), "presence")
  }

  func testBroadcastSharesOneBufferAcrossConnections() throws {
    let fixture = try ServerFixture()
    defer { fixture.stop() }
    let sockets = try (0..<5).map { _ in try WebSocket.connect(fixture.url("/ws/room-1")) }
    XCTAssertTrue(waitUntil { fixture.handler.opened.count == 5 })
    let server = fixture.server
    let handler = fixture.handler
    let accepted = SharedValue(0)
    server.post {
      let count = server.broadcast(
        Array("to all".utf8), to: handler.connections(in: "room-1") + [ConnectionID(rawValue: 999)])
      accepted.set(count)
    }
    for socket in sockets { XCTAssertEqual(try receiveText(socket), "to all") }
    XCTAssertEqual(accepted.value, 5)
  }

  func testPresenceIsDroppedFirstWhenTheQueueIsOverHalfFull() throws {
    let fixture = try ServerFixture { $0.maxQueueBytes = 64 << 10 }
    defer { fixture.stop() }
    let socket = try WebSocket.connect(fixture.url("/ws/room-1"))
    XCTAssertTrue(waitUntil { fixture.handler.opened.count == 1 })
    let id = try XCTUnwrap(fixture.handler.opened.keys.first)
    let server = fixture.server
    let chunk = String(repeating: "d", count: 4_096)
    let results = SharedValue<[Bool]>([])
    server.post {
      // All in one turn of the service thread: nothing is written in between, so the queue holds
      // 40 KiB (> half of 64 KiB) when the presence frame arrives.
      for index in 0..<10 { server.send(Array("\(index)\(chunk)".utf8), to: id) }
      let presence = server.send(Array("presence".utf8), to: id, priority: .presence)
      let data = server.send(Array("end".utf8), to: id)
      results.set([presence, data])
    }
    var received: [String] = []
    while received.last != "end" { received.append(try receiveText(socket)) }
    XCTAssertEqual(received.count, 11, "ten data frames and the end marker, no presence")
    XCTAssertFalse(received.contains("presence"))
    XCTAssertEqual(results.value, [true, true], "a dropped presence frame is not a failure")
    server.post { server.send(Array("presence".utf8), to: id, priority: .presence) }
    XCTAssertEqual(try receiveText(socket), "presence", "an empty queue takes presence")
  }

  func testServerCloseFlushesQueuedDataThenSendsTheCode() throws {
    let fixture = try ServerFixture()
    defer { fixture.stop() }
    let socket = try WebSocket.connect(fixture.url("/ws/room-1"))
    XCTAssertTrue(waitUntil { fixture.handler.opened.count == 1 })
    let id = try XCTUnwrap(fixture.handler.opened.keys.first)
    let server = fixture.server
    server.post {
      server.send(Array("last words".utf8), to: id)
      server.close(id, code: 4000, reason: "kicked")
      _ = server.send(Array("too late".utf8), to: id)
    }
    XCTAssertEqual(try receiveText(socket), "last words")
    let close = try receiveClose(socket)
    XCTAssertEqual(close.code, 4000)
    XCTAssertEqual(close.reason, "kicked")
  }
}
