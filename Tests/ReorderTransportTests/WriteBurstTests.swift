import Foundation
import ReorderTransport
import TestSupport
import XCTest

/// The server writes several queued frames per writeable callback; each must still arrive as one
/// whole message, in order, across the per-callback caps and a small socket buffer.
final class WriteBurstTests: XCTestCase {
  func testABurstQueuedInOnePassArrivesWholeAndInOrder() throws {
    let fixture = try ServerFixture {
      $0.maxQueueBytes = 8 << 20
      $0.socketSendBufferBytes = 8_192
    }
    defer { fixture.stop() }
    let client = try WebSocket.connect(fixture.url("/ws/room-1"))
    XCTAssertTrue(waitUntil { fixture.handler.opened.count == 1 })
    let server = fixture.server
    let handler = fixture.handler
    // Small frames (more than the 32-frame cap) and some larger than the 64 KiB byte cap.
    let sizes = (0..<300).map { $0 % 50 == 7 ? 100_000 : 10 + $0 % 200 }
    server.post {
      for peer in handler.connections(in: "room-1") {
        for (index, size) in sizes.enumerated() {
          server.send(Array("\(index):".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: size), to: peer)
        }
      }
    }
    for (index, size) in sizes.enumerated() {
      let text = try receiveText(client, timeout: 10)
      XCTAssertTrue(text.hasPrefix("\(index):"), "message \(index) missing or out of order")
      XCTAssertEqual(text.utf8.count, "\(index):".utf8.count + size, "message \(index) not whole")
    }
  }
}
