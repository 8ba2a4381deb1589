import XCTest

@testable import ReorderTransport

/// Long messages are queued as fragments (`OutgoingQueue.enqueue(fragmenting:)`), so the write
/// path writes one bounded piece per writeable callback.
final class OutgoingFragmentsTests: XCTestCase {
  func testAShortMessageIsOneWholeFrame() {
    var queue = OutgoingQueue(limitBytes: 100, headroom: 2)
    let queued = queue.enqueue(fragmenting: Array("abcd".utf8), pieceBytes: 4)
    XCTAssertEqual(queued.result, .queued)
    XCTAssertEqual(queued.frames, 1)
    let frame = queue.dequeue()
    XCTAssertEqual(frame?.isWhole, true)
    XCTAssertEqual(frame?.buffer.bytes, Array("abcd".utf8))
  }

  func testALongMessageIsATextFrameThenContinuationsTheLastFinal() {
    var queue = OutgoingQueue(limitBytes: 100, headroom: 2)
    let message = Array("0123456789".utf8)
    let queued = queue.enqueue(fragmenting: message, pieceBytes: 4)
    XCTAssertEqual(queued.result, .queued)
    XCTAssertEqual(queued.frames, 3)
    XCTAssertEqual(queue.count, 3)
    XCTAssertEqual(queue.bytes, 10)
    var frames: [OutgoingQueue.Frame] = []
    while let frame = queue.dequeue() { frames.append(frame) }
    XCTAssertEqual(frames.map(\.kind), [.text, .continuation, .continuation])
    XCTAssertEqual(frames.map(\.isFirst), [true, false, false])
    XCTAssertEqual(frames.map(\.isFinal), [false, false, true])
    XCTAssertEqual(frames.map(\.buffer.headroom), [2, 2, 2])
    XCTAssertEqual(frames.flatMap(\.buffer.bytes), message)
    XCTAssertFalse(frames.contains(where: \.isWhole))
  }

  func testTheBoundIsCheckedOnceForTheWholeMessage() {
    // Into an empty queue a message larger than the bound goes in, as one frame would.
    var empty = OutgoingQueue(limitBytes: 4, headroom: 0)
    XCTAssertEqual(empty.enqueue(fragmenting: [UInt8](repeating: 7, count: 10), pieceBytes: 3).frames, 4)
    // Behind something queued, it overflows whole: no fragment is queued.
    var busy = OutgoingQueue(limitBytes: 12, headroom: 0)
    _ = busy.enqueue([1, 2, 3])
    let queued = busy.enqueue(fragmenting: [UInt8](repeating: 7, count: 10), pieceBytes: 3)
    XCTAssertEqual(queued.result, .overflow)
    XCTAssertEqual(queued.frames, 0)
    XCTAssertEqual(busy.count, 1)
    XCTAssertEqual(busy.bytes, 3)
  }

  func testAnExactMultipleEndsWithAFullFinalPiece() {
    var queue = OutgoingQueue(limitBytes: 100, headroom: 0)
    XCTAssertEqual(queue.enqueue(fragmenting: Array("abcdefgh".utf8), pieceBytes: 4).frames, 2)
    XCTAssertEqual(queue.dequeue()?.buffer.bytes, Array("abcd".utf8))
    let last = queue.dequeue()
    XCTAssertEqual(last?.buffer.bytes, Array("efgh".utf8))
    XCTAssertEqual(last?.isFinal, true)
  }
}
