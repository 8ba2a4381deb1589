import Foundation
import ReorderTransport
import TestSupport
import XCTest

final class StaticFilesHTTPTests: XCTestCase {
  static let csp =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    + "connect-src 'self' ws: wss:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

  func testRootServesIndexWithStrictCSPAndNosniff() throws {
    let fixture = try ServerFixture()
    defer { fixture.stop() }
    let response = try httpGet(port: fixture.port, rawPath: "/")
    XCTAssertEqual(response.status, 200)
    XCTAssertTrue(response.text.contains("<title>Reorder</title>"))
    XCTAssertEqual(response.headers["content-type"], "text/html; charset=utf-8")
    XCTAssertEqual(response.headers["content-security-policy"], Self.csp)
    XCTAssertEqual(response.headers["x-content-type-options"], "nosniff")
    XCTAssertEqual(response.headers["cache-control"], "no-cache")
  }

  func testHealthzReportsStatusUptimeConnectionsAndRooms() throws {
    let fixture = try ServerFixture()
    defer { fixture.stop() }
    let socket = try WebSocket.connect(fixture.url("/ws/room-1"))
    XCTAssertTrue(waitUntil { fixture.server.connectionCount == 1 })
    let response = try httpGet(port: fixture.port, rawPath: "/healthz")
    XCTAssertEqual(response.status, 200)
    XCTAssertEqual(response.headers["content-type"], "application/json")
    XCTAssertEqual(response.headers["content-security-policy"], Self.csp)
    let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    XCTAssertEqual(json["status"] as? String, "ok")
    XCTAssertNotNil(json["uptime_s"] as? Int)
    XCTAssertEqual(json["connections"] as? Int, 1)
    XCTAssertEqual(json["rooms"] as? Int, 1)
    socket.close()
  }
}
