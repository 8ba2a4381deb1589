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
}

final class StaticFilesHTTPEdgeTests: XCTestCase {
  func testMissingFileIs404WithTheSameSecurityHeaders() throws {
    let fixture = try ServerFixture()
    defer { fixture.stop() }
    let response = try httpGet(port: fixture.port, rawPath: "/missing.js")
    XCTAssertEqual(response.status, 404)
    XCTAssertEqual(response.headers["content-security-policy"], StaticFilesHTTPTests.csp)
    XCTAssertEqual(response.headers["x-content-type-options"], "nosniff")
  }

  func testAssetsGetTheirMimeTypesAndCacheHeaders() throws {
    let fixture = try ServerFixture()
    defer { fixture.stop() }
    let expected = [
      "/app.js": ("text/javascript; charset=utf-8", "no-cache"),
      "/style.css": ("text/css; charset=utf-8", "no-cache"),
      "/icon.svg": ("image/svg+xml", "public, max-age=86400"),
      "/manifest.webmanifest": ("application/manifest+json", "no-cache"),
      "/sub/": ("text/html; charset=utf-8", "no-cache"),
    ]
    for (path, (type, cache)) in expected {
      let response = try httpGet(port: fixture.port, rawPath: path)
      XCTAssertEqual(response.status, 200, path)
      XCTAssertEqual(response.headers["content-type"], type, path)
      XCTAssertEqual(response.headers["cache-control"], cache, path)
      XCTAssertEqual(response.headers["content-security-policy"], StaticFilesHTTPTests.csp, path)
    }
  }

  func testEveryTraversalVariantIsRefused() throws {
    let fixture = try ServerFixture()
    defer { fixture.stop() }
    try FileManager.default.createSymbolicLink(
      atPath: fixture.webRoot.path + "/web/link.txt", withDestinationPath: fixture.webRoot.path + "/secret.txt")
    let variants = [
      "/../secret.txt", "/../../../../etc/passwd", "/sub/../../secret.txt", "/%2e%2e/secret.txt",
      "/%2E%2E/secret.txt", "/.%2e/secret.txt", "/%2e./secret.txt", "/..%2fsecret.txt", "/%2e%2e%2fsecret.txt",
      "/%252e%252e/secret.txt", "/%252e%252e%252fsecret.txt", "/..\\secret.txt", "/%5c..%5csecret.txt",
      "/sub\\..\\..\\secret.txt", "/%c0%ae%c0%ae/secret.txt", "/..%00/secret.txt", "/%00../secret.txt",
      "/....//secret.txt", "/..;/secret.txt", "/link.txt", "/%2fetc%2fpasswd", "/etc/passwd", "/./../secret.txt",
    ]
    for path in variants {
      let response = try httpGet(port: fixture.port, rawPath: path)
      XCTAssertNotEqual(response.status, 200, path)
      XCTAssertFalse(response.text.contains("TOP-SECRET"), path)
      XCTAssertFalse(response.text.contains("root:"), path)
    }
  }

  func testUnchangedFilesRevalidateWith304() throws {
    let fixture = try ServerFixture()
    defer { fixture.stop() }
    let first = try httpGet(port: fixture.port, rawPath: "/app.js")
    let etag = try XCTUnwrap(first.headers["etag"])
    let again = try httpGet(port: fixture.port, rawPath: "/app.js", headers: ["If-None-Match": etag])
    XCTAssertEqual(again.status, 304)
    XCTAssertTrue(again.body.isEmpty)
    XCTAssertEqual(again.headers["etag"], etag)
    XCTAssertEqual(again.headers["content-security-policy"], StaticFilesHTTPTests.csp)
    try fixture.webRoot.write("web/app.js", "export const changed = true; // longer now\n")
    let changed = try httpGet(port: fixture.port, rawPath: "/app.js", headers: ["If-None-Match": etag])
    XCTAssertEqual(changed.status, 200)
    XCTAssertTrue(changed.text.contains("changed"))
  }

  func testOnlyGetAndHeadAreServed() throws {
    let fixture = try ServerFixture()
    defer { fixture.stop() }
    let socket = try RawSocket(port: fixture.port)
    try socket.write("POST /app.js HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    let response = try parseHTTPResponse(try socket.readToEnd())
    XCTAssertEqual(response.status, 405)
    XCTAssertEqual(response.headers["allow"], "GET, HEAD")
  }

  func testHeadSendsHeadersWithoutABody() throws {
    let fixture = try ServerFixture()
    defer { fixture.stop() }
    for path in ["/", "/healthz", "/missing"] {
      let socket = try RawSocket(port: fixture.port)
      try socket.write("HEAD \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
      let raw = try socket.readToEnd()
      let response = try parseHTTPResponse(raw)
      XCTAssertNotEqual(response.status, 405, path)
      XCTAssertTrue(response.body.isEmpty, "\(path): \(response.text)")
      XCTAssertNotNil(response.headers["content-length"], path)
      XCTAssertEqual(response.headers["content-security-policy"], StaticFilesHTTPTests.csp, path)
    }
  }

  func testNoWebRootServesOnlyHealthz() throws {
    let fixture = try ServerFixture { $0.webRoot = nil }
    defer { fixture.stop() }
    XCTAssertEqual(try httpGet(port: fixture.port, rawPath: "/").status, 404)
    XCTAssertEqual(try httpGet(port: fixture.port, rawPath: "/healthz").status, 200)
  }
}
