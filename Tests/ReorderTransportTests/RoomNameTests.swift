import XCTest

@testable import ReorderTransport

final class RoomNameTests: XCTestCase {
  func testAcceptsLettersDigitsDashUnderscoreDot() {
    XCTAssertEqual(try RoomName.parse(decodedPath: "/ws/room-1").get(), "room-1")
    XCTAssertEqual(try RoomName.parse(decodedPath: "/ws/Board_2.v3").get(), "Board_2.v3")
    XCTAssertEqual(try RoomName.parse(decodedPath: "/ws/" + String(repeating: "a", count: 64)).get().count, 64)
  }

  func testRefusesEmptyTooLongAndForeignCharactersWithReasons() {
    XCTAssertEqual(RoomName.parse(decodedPath: "/ws/"), .failure(.empty))
    XCTAssertEqual(RoomName.parse(decodedPath: "/ws/" + String(repeating: "a", count: 65)), .failure(.tooLong(65)))
    for bad in ["a b", "a/b", "%41", "é", "a?b", "<script>", "a\u{0}b"] {
      XCTAssertEqual(RoomName.parse(decodedPath: "/ws/" + bad), .failure(.invalidCharacter), bad)
    }
    XCTAssertEqual(RoomName.parse(decodedPath: "/chat/x"), .failure(.notAWebSocketPath))
    for refusal in [RoomName.Refusal.empty, .tooLong(999), .invalidCharacter, .notAWebSocketPath] {
      XCTAssertTrue(refusal.reason.hasPrefix("invalid room name: "))
      XCTAssertLessThanOrEqual(refusal.reason.utf8.count, 123)
    }
  }
}

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
