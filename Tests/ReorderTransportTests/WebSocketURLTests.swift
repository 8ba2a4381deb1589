import XCTest

@testable import ReorderTransport

final class WebSocketURLTests: XCTestCase {
  func testParsesSchemeHostPortAndRawPath() {
    XCTAssertEqual(
      WebSocketURL("ws://127.0.0.1:8080/ws/%2e%2e"),
      WebSocketURL(secure: false, host: "127.0.0.1", port: 8080, path: "/ws/%2e%2e"))
    XCTAssertEqual(WebSocketURL("wss://example.org")?.port, 443)
    XCTAssertEqual(WebSocketURL("wss://example.org")?.path, "/")
    XCTAssertEqual(WebSocketURL("ws://[::1]:9000/x")?.host, "::1")
  }

  func testRejectsOtherSchemesAndBadPorts() {
    XCTAssertNil(WebSocketURL("http://x/"))
    XCTAssertNil(WebSocketURL("ws://x:0/"))
    XCTAssertNil(WebSocketURL("ws://x:http/"))
    XCTAssertNil(WebSocketURL("ws:///path"))
  }
}

extension WebSocketURL {
  init(secure: Bool, host: String, port: Int, path: String) {
    self = WebSocketURL("\(secure ? "wss" : "ws")://\(host):\(port)\(path)")!
  }
}
