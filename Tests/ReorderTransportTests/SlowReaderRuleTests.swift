import XCTest

@testable import ReorderTransport

/// The slow-reader rule alone (`SlowReaderWatch`): what counts as unread, when a connection is
/// watched, gated, released and closed. No sockets, time given by hand.
final class SlowReaderRuleTests: XCTestCase {
  private var limits: SlowReaderLimits {
    var limits = SlowReaderLimits()
    limits.gateBytes = 16_384
    limits.closeSeconds = 10
    return limits
  }

  private func sample(unsent: Int = 0, inFlight: Int = 0, window: Int? = 65_536) -> SocketBacklog {
    SocketBacklog(unsentBytes: unsent, inFlightBytes: inFlight, peerWindowBytes: window)
  }

  /// A watch that `queued` and `checked` made watched with `unread` bytes unread.
  private func watched(unread: Int = 40_000) -> SlowReaderWatch {
    var watch = SlowReaderWatch()
    XCTAssertTrue(watch.queued(bytes: limits.gateBytes, limits: limits))
    XCTAssertTrue(watch.checked(unread: unread, limits: limits))
    return watch
  }

  func testUnreadIsUnsentPlusInFlightPlusWhatThePeersBufferHolds() {
    var watch = SlowReaderWatch()
    watch.opened(sample(window: 65_536))
    XCTAssertEqual(watch.unread(sample(unsent: 1_000, inFlight: 500, window: 65_536)), 1_500)
    // The peer's window shrank by what its buffer holds unread.
    XCTAssertEqual(watch.unread(sample(unsent: 1_000, inFlight: 0, window: 25_536)), 41_000)
    // A larger window than any before is the new empty buffer.
    XCTAssertEqual(watch.unread(sample(window: 131_072)), 0)
    XCTAssertEqual(watch.largestWindow, 131_072)
    XCTAssertEqual(watch.unread(sample(window: 65_536)), 65_536)
    // Without a window (an old kernel) only the sender's side counts.
    XCTAssertEqual(watch.unread(sample(unsent: 7, inFlight: 3, window: nil)), 10)
  }

  func testThePeersBufferCountsOnlyOnceItsWindowIsAtMostHalfOpenAndTheGateNever() {
    var watch = SlowReaderWatch()
    watch.opened(sample(window: 100_000))
    // More than half open: a reader that keeps up shows such windows too (buffer space, not bytes).
    XCTAssertEqual(watch.unread(sample(unsent: 5, window: 50_001)), 5)
    XCTAssertEqual(watch.unread(sample(unsent: 5, window: 50_000)), 50_005)
    XCTAssertEqual(watch.unread(sample(window: 0)), 100_000)
    XCTAssertEqual(SlowReaderWatch.unsent(sample(unsent: 5, inFlight: 7, window: 0)), 12)
  }

  func testTheKernelIsLookedAtOncePerGateOfBytesQueuedAndOnlyABacklogMakesItWatched() {
    var watch = SlowReaderWatch()
    XCTAssertFalse(watch.queued(bytes: 10_000, limits: limits))
    XCTAssertTrue(watch.queued(bytes: 6_384, limits: limits))
    XCTAssertFalse(watch.checked(unread: 16_384, limits: limits), "at the gate is not over it")
    XCTAssertFalse(watch.isWatched)
    XCTAssertFalse(watch.queued(bytes: 16_383, limits: limits))
    XCTAssertTrue(watch.queued(bytes: 1, limits: limits))
    XCTAssertTrue(watch.checked(unread: 16_385, limits: limits))
    XCTAssertTrue(watch.isWatched)
    // Watched: the gate looks at the kernel itself, `queued` no longer asks.
    XCTAssertFalse(watch.queued(bytes: 1 << 20, limits: limits))
  }

  func testNothingIsWatchedWhenBothBoundsAreOff() {
    var off = SlowReaderLimits()
    off.gateBytes = 0
    off.closeSeconds = 0
    var watch = SlowReaderWatch()
    XCTAssertFalse(watch.queued(bytes: 1 << 30, limits: off))
  }

  func testAWatchedConnectionGetsPresenceOnlyWhileItsKernelHoldsLittleUnsent() {
    let watch = watched()
    XCTAssertTrue(watch.gates(unsent: 16_385, limits: limits))
    XCTAssertFalse(watch.gates(unsent: 16_384, limits: limits))
    XCTAssertFalse(watch.gates(unsent: 0, limits: limits))
    XCTAssertFalse(SlowReaderWatch().gates(unsent: 1 << 20, limits: limits), "an unwatched one is not gated")
    var noGate = limits
    noGate.gateBytes = 0
    XCTAssertFalse(watch.gates(unsent: 1 << 20, limits: noGate))
  }

  func testABacklogThatStaysHighWithoutHalvingIsClosedAfterTheBound() {
    var watch = watched()
    let high = limits.closeBytes + 1
    XCTAssertEqual(watch.sweep(unread: high, queued: 0, now: 100, limits: limits), .watch)
    XCTAssertEqual(watch.sweep(unread: high, queued: 50_000, now: 105, limits: limits), .watch)
    XCTAssertEqual(watch.sweep(unread: high, queued: 0, now: 109.9, limits: limits), .watch)
    XCTAssertEqual(
      watch.sweep(unread: high, queued: 10, now: 110, limits: limits), .close(bytes: high + 10, seconds: 10))
  }

  func testABacklogThatHalvesRestartsTheClockAndOneUnderTheBoundStopsIt() {
    var watch = watched()
    // A large welcome draining over a slow link: it halves within each bound, never closed.
    var backlog = 2_000_000
    var now = 0.0
    while backlog > limits.closeBytes {
      XCTAssertEqual(watch.sweep(unread: backlog, queued: 0, now: now, limits: limits), .watch)
      backlog = backlog * 6 / 10
      now += 6
    }
    // Under the bound the clock stops; high again, it starts from there.
    XCTAssertEqual(watch.sweep(unread: 1_000, queued: 0, now: now, limits: limits), .watch)
    XCTAssertNil(watch.backlogSince)
    XCTAssertEqual(watch.sweep(unread: 100_000, queued: 0, now: now + 1, limits: limits), .watch)
    XCTAssertEqual(watch.sweep(unread: 100_000, queued: 0, now: now + 10.5, limits: limits), .watch)
    XCTAssertEqual(
      watch.sweep(unread: 100_000, queued: 0, now: now + 11, limits: limits), .close(bytes: 100_000, seconds: 10))
  }

  func testWithoutACloseBoundAStuckBacklogStaysWatched() {
    var noClose = limits
    noClose.closeSeconds = 0
    var watch = watched()
    for second in 0..<100 {
      XCTAssertEqual(watch.sweep(unread: 1 << 20, queued: 0, now: Double(second), limits: noClose), .watch)
    }
  }

  func testAReaderThatCaughtUpForSeveralSweepsIsReleased() {
    var watch = watched()
    for index in 0..<(SlowReaderWatch.cleanSweeps - 1) {
      XCTAssertEqual(watch.sweep(unread: 8_192, queued: 0, now: Double(index), limits: limits), .watch)
    }
    // One sweep with more unread, or anything queued, starts the count again.
    XCTAssertEqual(watch.sweep(unread: 8_193, queued: 0, now: 10, limits: limits), .watch)
    for index in 0..<(SlowReaderWatch.cleanSweeps - 1) {
      XCTAssertEqual(watch.sweep(unread: 0, queued: 0, now: 11 + Double(index), limits: limits), .watch)
    }
    XCTAssertEqual(watch.sweep(unread: 0, queued: 1, now: 20, limits: limits), .watch)
    for index in 0..<(SlowReaderWatch.cleanSweeps - 1) {
      XCTAssertEqual(watch.sweep(unread: 0, queued: 0, now: 21 + Double(index), limits: limits), .watch)
    }
    XCTAssertEqual(watch.sweep(unread: 0, queued: 0, now: 30, limits: limits), .release)
    XCTAssertFalse(watch.isWatched)
    XCTAssertFalse(watch.gates(unsent: 1 << 20, limits: limits))
  }

  func testTheCloseBoundIsFourGatesAndAtLeast64KiB() {
    var limits = SlowReaderLimits()
    XCTAssertEqual(limits.gateBytes, 16_384)
    XCTAssertEqual(limits.closeSeconds, 10)
    XCTAssertEqual(limits.closeBytes, 65_536)
    limits.gateBytes = 100_000
    XCTAssertEqual(limits.closeBytes, 400_000)
    limits.gateBytes = 1_000
    XCTAssertEqual(limits.closeBytes, 65_536)
  }
}
