import Foundation
import ReorderTransport
import TestSupport
import XCTest

final class WebSocketRoundTripTests: XCTestCase {
  func testTextMessageRoundTripsOnRoomPath() throws {
    let fixture = try ServerFixture()
    defer { fixture.stop() }
    let socket = try WebSocket.connect(fixture.url("/ws/room-1"))
    socket.send("hello")
    XCTAssertEqual(try receiveText(socket), "hello")
    XCTAssertEqual(fixture.handler.opened.values.first, "room-1")
    XCTAssertTrue(waitUntil { fixture.server.connectionCount == 1 })
    socket.close()
    XCTAssertTrue(waitUntil { fixture.handler.closed.count == 1 })
    XCTAssertTrue(waitUntil { fixture.server.connectionCount == 0 })
  }

  func testBroadcastReachesEveryoneInTheRoomOnly() throws {
    let fixture = try ServerFixture()
    defer { fixture.stop() }
    let alice = try WebSocket.connect(fixture.url("/ws/board"))
    let bob = try WebSocket.connect(fixture.url("/ws/board"))
    let carol = try WebSocket.connect(fixture.url("/ws/other"))
    XCTAssertTrue(waitUntil { fixture.handler.opened.count == 3 })
    alice.send("broadcast:moved")
    XCTAssertEqual(try receiveText(alice), "moved")
    XCTAssertEqual(try receiveText(bob), "moved")
    carol.send("ping")
    XCTAssertEqual(try receiveText(carol), "ping")
  }
}
