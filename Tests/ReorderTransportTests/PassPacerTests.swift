import XCTest

@testable import ReorderTransport

final class PassPacerTests: XCTestCase {
  func testOnlyLightPassesOverManySocketsWait() {
    XCTAssertFalse(PassPacer.shouldWait(events: 0, sockets: 100), "a small loop never waits")
    XCTAssertTrue(PassPacer.shouldWait(events: 3, sockets: 1_000))
    XCTAssertTrue(PassPacer.shouldWait(events: 249, sockets: 1_000))
    XCTAssertFalse(PassPacer.shouldWait(events: 250, sockets: 1_000), "a pass with a quarter of the sockets busy")
  }

  func testSpacingGrowsWithSocketsUpToTheCap() {
    XCTAssertEqual(PassPacer.spacing(sockets: 1_000), 1_000_000)
    XCTAssertEqual(PassPacer.spacing(sockets: 500), 500_000)
    XCTAssertEqual(PassPacer.spacing(sockets: 100_000), PassPacer.maxSpacingNanoseconds)
  }

  /// (Only a lower bound on time: an upper one would fail on a loaded machine.)
  func testALightPassIsFollowedByTheSpacing() {
    var pacer = PassPacer()
    pacer.beforePass(sockets: 1_000)  // the first pass never waits
    let start = PassPacer.monotonicNanoseconds()
    pacer.events = 1
    pacer.beforePass(sockets: 1_000)
    XCTAssertGreaterThanOrEqual(PassPacer.monotonicNanoseconds() - start, 900_000, "a light pass: wait ~1 ms")
    XCTAssertEqual(pacer.events, 0, "a new pass starts counting from zero")
  }
}
