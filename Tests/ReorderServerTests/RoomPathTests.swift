import ReorderAPI
import XCTest

@testable import ReorderServer

final class RoomPathTests: XCTestCase {
  func testAcceptsLettersDigitsDashUnderscoreDot() {
    XCTAssertEqual(try RoomPath.parse(decodedPath: "/ws/room-1").get(), "room-1")
    XCTAssertEqual(try RoomPath.parse(decodedPath: "/ws/Board_2.v3").get(), "Board_2.v3")
    XCTAssertEqual(try RoomPath.parse(decodedPath: "/ws/" + String(repeating: "a", count: 64)).get().count, 64)
  }

  func testRefusesEmptyTooLongAndForeignCharactersWithReasons() {
    XCTAssertEqual(RoomPath.parse(decodedPath: "/ws/"), .failure(.empty))
    XCTAssertEqual(RoomPath.parse(decodedPath: "/ws/" + String(repeating: "a", count: 65)), .failure(.tooLong(65)))
    for bad in ["a b", "a/b", "%41", "é", "a?b", "<script>", "a\u{0}b"] {
      XCTAssertEqual(RoomPath.parse(decodedPath: "/ws/" + bad), .failure(.invalidCharacter), bad)
    }
    XCTAssertEqual(RoomPath.parse(decodedPath: "/chat/x"), .failure(.notAWebSocketPath))
    for refusal in [RoomPath.Refusal.empty, .tooLong(999), .invalidCharacter, .notAWebSocketPath] {
      XCTAssertTrue(refusal.reason.hasPrefix("invalid room name: "))
      XCTAssertLessThanOrEqual(refusal.reason.utf8.count, 123)
    }
  }
}
