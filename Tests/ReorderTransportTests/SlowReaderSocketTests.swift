import Foundation
import TestSupport
import XCTest

@testable import ReorderTransport

/// Slow readers over real sockets on 127.0.0.1: a client that stops reading is gated (no
/// presence) while what it was sent sits unread, gets presence again once it has read it, and is
/// closed with 4008 when its backlog stays high; a reading client on the same server is not.
final class SlowReaderSocketTests: XCTestCase {
  /// Runs `body` on the service thread and returns its result.
  private func onService<T>(_ server: WebSocketServer, _ body: @escaping @Sendable () -> T) -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    server.post {
      box.value = body()
      done.signal()
    }
    done.wait()
    return box.value!
  }

  func testAClientThatStopsReadingGetsNoPresenceUntilItHasReadWhatItWasSent() throws {
    // A slow link: the client's 4 KiB receive buffer holds little, the server's kernel (a 1 MiB
    // send buffer) takes the rest.
    let fixture = try ServerFixture {
      $0.slowReaders.gateBytes = 16_384
      $0.slowReaders.closeSeconds = 0
      $0.socketSendBufferBytes = 1 << 20
    }
    defer { fixture.stop() }
    let slow = try RawSocket(port: fixture.port, receiveBufferBytes: 4_096)
    XCTAssertTrue(try slow.websocketHandshake(path: "/ws/room-1").contains("101"))
    XCTAssertTrue(waitUntil { fixture.handler.opened.count == 1 })
    let slowID = try XCTUnwrap(fixture.handler.opened.keys.first)
    let fast = try WebSocket.connect(fixture.url("/ws/room-1"))
    XCTAssertTrue(waitUntil { fixture.handler.opened.count == 2 })
    let fastID = try XCTUnwrap(fixture.handler.opened.keys.first { $0 != slowID })
    let server = fixture.server

    // 64 KiB of data the slow client does not read: the server's kernel takes it all (nothing
    // waits in the server's own queue), and most of it stays there, unsent.
    let frames = 32
    let payload = Array(String(repeating: "d", count: 2_048).utf8)
    for _ in 0..<frames {
      server.post {
        server.send(payload, to: slowID)
        server.send(payload, to: fastID)
      }
      XCTAssertEqual(try receiveText(fast).count, payload.count)
    }
    XCTAssertTrue(
      waitUntil { self.onService(server) { server.isBusy(slowID) } }, "a client with 64 KiB unsent was not gated")
    XCTAssertFalse(onService(server) { server.isBusy(fastID) })
    let stats = onService(server) { server.statistics }
    XCTAssertEqual(stats.slowReadersWatched, 1)
    XCTAssertEqual(stats.queuedBytes, 0, "the gate is about the kernel's bytes, not the server's queue")
    // Presence to it is dropped; to the reading client it is sent.
    let dropped = stats.presenceDropped
    server.post {
      server.send(Array("drag".utf8), to: slowID, priority: .presence)
      server.send(Array("drag".utf8), to: fastID, priority: .presence)
    }
    XCTAssertEqual(try receiveText(fast), "drag")
    XCTAssertEqual(onService(server) { server.statistics.presenceDropped }, dropped + 1)

    // Once it has read everything, it gets presence again (fresh: nothing is waiting before it).
    for index in 0..<frames {
      let frame = try XCTUnwrap(try slow.readFrame(), "frame \(index) missing")
      XCTAssertEqual(frame.payload.count, payload.count)
    }
    XCTAssertTrue(
      waitUntil { !self.onService(server) { server.isBusy(slowID) } }, "a client that caught up stayed gated")
    server.post { server.send(Array("fresh".utf8), to: slowID, priority: .presence) }
    XCTAssertEqual(try slow.readFrame().map { String(decoding: $0.payload, as: UTF8.self) }, "fresh")
  }

  func testAClientWhoseBacklogStaysHighIsClosedWith4008AndTheOthersAreNot() throws {
    let fixture = try ServerFixture {
      $0.slowReaders.gateBytes = 16_384
      $0.slowReaders.closeSeconds = 1
      $0.slowReaderSweepSeconds = 0.05
    }
    defer { fixture.stop() }
    let slow = try RawSocket(port: fixture.port)
    XCTAssertTrue(try slow.websocketHandshake(path: "/ws/room-1").contains("101"))
    XCTAssertTrue(waitUntil { fixture.handler.opened.count == 1 })
    let slowID = try XCTUnwrap(fixture.handler.opened.keys.first)
    let fast = try WebSocket.connect(fixture.url("/ws/room-1"))
    XCTAssertTrue(waitUntil { fixture.handler.opened.count == 2 })
    let server = fixture.server
    let handler = fixture.handler

    // Broadcasts the fast client reads one by one while the slow one reads none, paced so that
    // the backlog stays far below the 4 MiB queue limit (that would be the 1008 overflow instead).
    let payload = String(repeating: "b", count: 2_048)
    var sent = 0
    while sent < 2_000, onService(server, { server.statistics.slowReaderCloses }) == 0 {
      let text = Array("\(sent):\(payload)".utf8)
      server.post {
        for peer in handler.connections(in: "room-1") { server.send(text, to: peer) }
      }
      XCTAssertTrue(try receiveText(fast, timeout: 10).hasPrefix("\(sent):"), "broadcast \(sent) missing")
      sent += 1
      Thread.sleep(forTimeInterval: 0.005)
    }
    XCTAssertEqual(onService(server) { server.statistics.slowReaderCloses }, 1, "no 4008 after \(sent) broadcasts")

    // The slow client finds the close frame after what the kernel already held for it.
    var close: (opcode: UInt8, payload: [UInt8])?
    while let frame = try slow.readFrame() {
      if frame.opcode == 8 {
        close = frame
        break
      }
    }
    let frame = try XCTUnwrap(close, "no close frame")
    XCTAssertEqual(UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1]), 4008)
    XCTAssertTrue(String(decoding: frame.payload.dropFirst(2), as: UTF8.self).hasPrefix("slow reader: "))
    XCTAssertTrue(waitUntil { handler.closed.contains(slowID) })
    XCTAssertEqual(onService(server) { server.statistics.disconnects[4008] }, 1)
    fast.send("still here")
    XCTAssertEqual(try receiveText(fast), "still here")
    XCTAssertEqual(server.connectionCount, 1)
  }
}

/// A value set on the service thread and read after a semaphore.
private final class ResultBox<T>: @unchecked Sendable {
  var value: T?
}
