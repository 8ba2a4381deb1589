import XCTest

@testable import ReorderTransport

final class MessageAssemblerTests: XCTestCase {
  private func feed(
    _ assembler: inout MessageAssembler, _ text: String, final: Bool, remaining: Int = 0, binary: Bool = false
  ) -> MessageAssembler.Outcome {
    Array(text.utf8).withUnsafeBytes {
      assembler.append($0, isBinary: binary, isFinalFragment: final, remainingInFrame: remaining)
    }
  }

  func testCompletesOnlyOnFinalFragmentWithNothingRemaining() {
    var assembler = MessageAssembler(maxBytes: 100)
    XCTAssertEqual(feed(&assembler, "ab", final: false), .incomplete)
    XCTAssertEqual(feed(&assembler, "cd", final: true, remaining: 3), .incomplete)
    XCTAssertEqual(feed(&assembler, "efg", final: true), .complete(Array("abcdefg".utf8), isBinary: false))
    XCTAssertEqual(feed(&assembler, "next", final: true, binary: true), .complete(Array("next".utf8), isBinary: true))
  }

  func testRefusesAMessageAsSoonAsItsKnownSizeExceedsTheLimit() {
    var assembler = MessageAssembler(maxBytes: 10)
    XCTAssertEqual(feed(&assembler, "12345", final: false), .incomplete)
    XCTAssertEqual(feed(&assembler, "123", final: true, remaining: 5), .tooLarge(bytes: 13))
    XCTAssertEqual(feed(&assembler, "0123456789", final: true), .complete(Array("0123456789".utf8), isBinary: false))
  }
}

final class OutgoingQueueTests: XCTestCase {
  func testBoundsBytesAndKeepsOrder() {
    var queue = OutgoingQueue(limitBytes: 10, headroom: 4)
    XCTAssertEqual(queue.enqueue(Array("abcd".utf8)), .queued)
    XCTAssertEqual(queue.enqueue(Array("efgh".utf8)), .queued)
    XCTAssertEqual(queue.enqueue(Array("ijk".utf8)), .overflow)
    XCTAssertEqual(queue.bytes, 8)
    let first = queue.dequeue()
    XCTAssertEqual(first?.buffer.bytes, Array("abcd".utf8))
    XCTAssertEqual(first?.buffer.headroom, 4)
    XCTAssertEqual(first?.payloadCount, 4)
    XCTAssertEqual(queue.bytes, 4)
    XCTAssertEqual(queue.dequeue()?.buffer.bytes, Array("efgh".utf8))
    XCTAssertNil(queue.dequeue())
    XCTAssertTrue(queue.isEmpty)
  }

  func testAcceptsOneOversizedFrameIntoAnEmptyQueue() {
    var queue = OutgoingQueue(limitBytes: 4, headroom: 0)
    XCTAssertEqual(queue.enqueue([UInt8](repeating: 1, count: 100)), .queued)
    XCTAssertEqual(queue.enqueue([1]), .overflow)
  }

  func testAConnectionIsBusyForPresenceWhenBackloggedOrOverHalfFull() {
    XCTAssertFalse(BusyRule.isBusy(backlogged: false, frames: 50, bytes: 5, limitBytes: 10))
    XCTAssertFalse(BusyRule.isBusy(backlogged: true, frames: BusyRule.frames, bytes: 1, limitBytes: 10))
    XCTAssertTrue(BusyRule.isBusy(backlogged: true, frames: BusyRule.frames + 1, bytes: 1, limitBytes: 10))
    XCTAssertTrue(BusyRule.isBusy(backlogged: false, frames: 1, bytes: 6, limitBytes: 10))
  }

  func testSharedBuffersAreAdmittedLikeCopies() {
    let shared = FrameBuffer(Array("same".utf8), headroom: 2)
    var first = OutgoingQueue(limitBytes: 6, headroom: 2)
    var second = OutgoingQueue(limitBytes: 6, headroom: 2)
    XCTAssertEqual(first.enqueue(shared: shared), .queued)
    XCTAssertEqual(second.enqueue(shared: shared), .queued)
    XCTAssertEqual(first.enqueue(shared: shared), .overflow)
    XCTAssertTrue(first.dequeue()?.buffer === second.dequeue()?.buffer)
  }

  func testManyFramesDrainInOrder() {
    var queue = OutgoingQueue(limitBytes: 1 << 20, headroom: 2)
    for index in 0..<5000 { _ = queue.enqueue([UInt8(index % 251)]) }
    for index in 0..<5000 { XCTAssertEqual(queue.dequeue()?.buffer.bytes, [UInt8(index % 251)]) }
    XCTAssertEqual(queue.bytes, 0)
  }
}
