import XCTest

@testable import ReorderTransport

/// The parts split out of the server that need no lws: the connection table, the heap-trim policy,
/// the extra-tick deadline.
final class TransportPartsTests: XCTestCase {
  private func connection(_ table: ConnectionTable, _ address: Int) -> ServerConnection {
    ServerConnection(
      id: table.nextID(), wsi: OpaquePointer(bitPattern: address)!, socket: -1, ownsSocket: true,
      maxMessageBytes: 100, maxQueueBytes: 100)
  }

  func testTheConnectionTableFindsByHandleAndIdAndNeverReusesIds() {
    let table = ConnectionTable()
    let a = connection(table, 0x1000)
    let b = connection(table, 0x2000)
    table.insert(a)
    table.insert(b)
    XCTAssertTrue(table[a.wsi] === a)
    XCTAssertTrue(table[b.id] === b)
    XCTAssertEqual(table.count, 2)
    XCTAssertTrue(table.remove(a.wsi) === a)
    XCTAssertNil(table[a.id])
    XCTAssertNil(table.remove(a.wsi))
    let c = connection(table, 0x1000)
    XCTAssertGreaterThan(c.id.rawValue, b.id.rawValue, "a reused handle gets a new id")
    XCTAssertEqual(table.all.count, 1)
  }

  func testHeapTrimWaitsForADrainedBurstAndAQuietSpell() {
    var policy = HeapTrimPolicy()
    policy.queued(bytes: HeapTrimPolicy.afterBytes - 1)
    XCTAssertNil(policy.drained(allDrained: true), "no burst yet")
    policy.queued(bytes: 1)
    XCTAssertNil(policy.drained(allDrained: false), "other queues still hold frames")
    XCTAssertEqual(policy.drained(allDrained: true), HeapTrimPolicy.quietSeconds)
    XCTAssertNil(policy.drained(allDrained: true), "one check at a time")
    policy.queued(bytes: 10)
    XCTAssertEqual(policy.check(allDrained: true), .recheck(afterSeconds: HeapTrimPolicy.quietSeconds * 2))
    policy.queued(bytes: 10)
    XCTAssertEqual(policy.check(allDrained: true), .recheck(afterSeconds: HeapTrimPolicy.quietSeconds * 4))
    XCTAssertEqual(policy.check(allDrained: true), .trim)
    XCTAssertFalse(policy.isArmed)
    XCTAssertEqual(policy.bytesSinceTrim, 0)
  }

  func testHeapTrimBackOffIsCapped() {
    var policy = HeapTrimPolicy()
    policy.queued(bytes: HeapTrimPolicy.afterBytes)
    _ = policy.drained(allDrained: true)
    var last = 0.0
    for _ in 0..<10 {
      policy.queued(bytes: 1)
      if case .recheck(let seconds) = policy.check(allDrained: true) { last = seconds }
    }
    XCTAssertEqual(last, HeapTrimPolicy.maxBackoffSeconds)
  }

  func testASoonerPendingTickStandsAndAnEarlierRequestMovesIt() {
    var deadline = TickDeadline()
    XCTAssertTrue(deadline.request(at: 100))
    XCTAssertFalse(deadline.request(at: 150), "the pending tick at 100 serves a request for 150")
    XCTAssertFalse(deadline.request(at: 100))
    XCTAssertTrue(deadline.request(at: 40))
    XCTAssertEqual(deadline.dueAt, 40)
    deadline.clear()
    XCTAssertTrue(deadline.request(at: 500))
  }
}
