import Foundation
import TestSupport
import XCTest

@testable import ReorderTransport

/// Counts client events across threads.
final class EventCounter: @unchecked Sendable {
  private let lock = NSLock()
  private var counts: [String: Int] = [:]
  private var closes: [UInt64: (UInt16?, String)] = [:]

  func add(_ key: String) {
    lock.lock()
    counts[key, default: 0] += 1
    lock.unlock()
  }

  func count(_ key: String) -> Int {
    lock.lock()
    defer { lock.unlock() }
    return counts[key, default: 0]
  }

  func closed(_ id: UInt64, code: UInt16?, reason: String) {
    lock.lock()
    closes[id] = (code, reason)
    counts["closed", default: 0] += 1
    lock.unlock()
  }

  var closeEvents: [UInt64: (UInt16?, String)] {
    lock.lock()
    defer { lock.unlock() }
    return closes
  }
}

final class LoadAndBackpressureTests: XCTestCase {
  func testOneThousandConcurrentConnectionsAreAcceptedAndServed() throws {
    let limit = raiseOpenFileLimit(to: 4_096)
    try XCTSkipIf(limit < 2_200, "needs ~2,100 file descriptors, RLIMIT_NOFILE is \(limit)")
    let fixture = try ServerFixture()
    defer { fixture.stop() }
    let client = try WebSocketClientContext(supportsTLS: false)
    defer { client.shutdown() }
    let counter = EventCounter()
    let total = 1_000
    var connections: [ClientConnection] = []
    for index in 0..<total {
      connections.append(
        client.connect(url: fixture.url("/ws/room-\(index % 10)")) { connection, event in
          switch event {
          case .opened:
            counter.add("opened")
            connection.send("hello \(connection.id)")
          case .text(let text):
            if text == "hello \(connection.id)" { counter.add("echoed") }
          case .closed(let code, let reason):
            counter.closed(connection.id, code: code, reason: reason)
          case .binary:
            break
          }
        })
    }
    XCTAssertTrue(waitUntil(timeout: 60) { counter.count("echoed") == total || counter.count("closed") > 0 })
    XCTAssertEqual(counter.count("opened"), total)
    XCTAssertEqual(counter.count("echoed"), total)
    XCTAssertEqual(counter.count("closed"), 0, "\(counter.closeEvents.values.prefix(3))")
    XCTAssertEqual(fixture.server.connectionCount, total)
    let health = try httpGet(port: fixture.port, rawPath: "/healthz")
    XCTAssertTrue(health.text.contains("\"connections\":1000"), health.text)
    XCTAssertTrue(health.text.contains("\"rooms\":10"), health.text)
    for connection in connections { connection.close() }
    XCTAssertTrue(waitUntil(timeout: 30) { fixture.server.connectionCount == 0 })
  }

  /// A server with a 64 KiB queue limit and 4 KiB socket buffers, and one raw websocket client
  /// (4 KiB receive buffer) open on `/ws/room-1`.
  func smallBuffersServerAndRawClient() throws -> (ServerFixture, RawSocket) {
    let fixture = try ServerFixture {
      $0.maxQueueBytes = 64 << 10
      $0.socketSendBufferBytes = 4_096
    }
    let client = try RawSocket(port: fixture.port, receiveBufferBytes: 4_096)
    XCTAssertTrue(try client.websocketHandshake(path: "/ws/room-1").contains("101"))
    XCTAssertTrue(waitUntil { fixture.handler.opened.count == 1 })
    return (fixture, client)
  }

  func testNonReadingClientDoesNotDelayOthersAndIsCutOffWhenItsQueueIsFull() throws {
    let (fixture, slow) = try smallBuffersServerAndRawClient()
    defer { fixture.stop() }
    let slowID = try XCTUnwrap(fixture.handler.opened.keys.first)
    let fast = try WebSocket.connect(fixture.url("/ws/room-1"))
    XCTAssertTrue(waitUntil { fixture.handler.opened.count == 2 })

    let messages = 400
    let payload = String(repeating: "m", count: 4_096)
    let server = fixture.server
    let handler = fixture.handler
    // One broadcast at a time: the fast client must get each one while the slow one piles up.
    for index in 0..<messages {
      server.post {
        for peer in handler.connections(in: "room-1") {
          server.send(Array("\(index):\(payload)".utf8), to: peer)
        }
      }
      let text = try receiveText(fast, timeout: 10)
      XCTAssertTrue(text.hasPrefix("\(index):"), "message \(index) missing or out of order")
    }
    XCTAssertTrue(waitUntil { handler.closed.contains(slowID) }, "the non-reading client was not cut off")
    XCTAssertEqual(server.connectionCount, 1)
    fast.send("still here")
    XCTAssertEqual(try receiveText(fast), "still here")
    // The slow client's socket ends (after whatever was in flight) instead of staying open.
    XCTAssertNoThrow(try slow.readToEnd())
  }

  /// A client that sends faster than it reads the replies its messages cause is slowed down (the
  /// server stops reading it while its queue is backlogged) instead of being cut off: every reply
  /// arrives, in order, once it reads, and the connection stays open.
  func testAClientFloodingFasterThanItReadsIsSlowedNotCutOff() throws {
    let (fixture, client) = try smallBuffersServerAndRawClient()
    defer { fixture.stop() }

    // 200 echoes of 4 KiB are 800 KiB of replies: 12 times the queue limit.
    let messages = 200
    let payload = String(repeating: "f", count: 4_096)
    // One thread writes while this one reads: a socket's two directions are independent.
    let box = UncheckedSocket(client)
    let writer = Thread {
      for index in 0..<messages {
        try? box.socket.writeFrame(opcode: 1, payload: Array("\(index):\(payload)".utf8))
      }
    }
    writer.start()
    // Let the flood back up while nothing is read.
    Thread.sleep(forTimeInterval: 1)
    XCTAssertTrue(fixture.handler.closed.isEmpty, "the flooding client was cut off")
    for index in 0..<messages {
      let frame = try XCTUnwrap(try client.readFrame(), "reply \(index) missing")
      XCTAssertEqual(frame.opcode, 1)
      let text = String(decoding: frame.payload, as: UTF8.self)
      XCTAssertTrue(text.hasPrefix("\(index):"), "reply \(index) out of order")
    }
    XCTAssertTrue(fixture.handler.closed.isEmpty)
    XCTAssertEqual(fixture.server.connectionCount, 1)
  }
}

/// A socket handed to a writer thread (the test reads on its own thread at the same time).
private final class UncheckedSocket: @unchecked Sendable {
  let socket: RawSocket
  init(_ socket: RawSocket) { self.socket = socket }
}

final class HeapTrimTests: XCTestCase {
  /// Once a burst of at least `trimAfterBytes` has been written out and every queue is empty, the
  /// server trims the heap, without any periodic tick; and it keeps count of non-empty queues.
  func testAServerThatDrainedABurstTrimsItsHeap() throws {
    let fixture = try ServerFixture()
    defer { fixture.stop() }
    let client = try WebSocket.connect(fixture.url("/ws/room-1"))
    XCTAssertTrue(waitUntil { fixture.handler.opened.count == 1 })
    let payload = String(repeating: "b", count: 60_000)
    let messages = HeapTrimPolicy.afterBytes / 60_000 + 2
    for index in 0..<messages {
      client.send("\(index):\(payload)")
      let echo = try receiveText(client, timeout: 10)
      XCTAssertTrue(echo.hasPrefix("\(index):"))
    }
    let server = fixture.server
    let state = UncheckedBox((trims: 0, nonEmpty: -1))
    XCTAssertTrue(
      waitUntil {
        let done = DispatchSemaphore(value: 0)
        server.post {
          state.value = (server.statistics.heapTrims, server.writes.nonEmptyQueues)
          done.signal()
        }
        done.wait()
        return state.value.trims >= 1
      }, "the drained burst was not trimmed")
    XCTAssertEqual(state.value.nonEmpty, 0)
  }
}

/// A value written on the service thread and read by the test after a semaphore.
private final class UncheckedBox<Value>: @unchecked Sendable {
  var value: Value
  init(_ value: Value) { self.value = value }
}
