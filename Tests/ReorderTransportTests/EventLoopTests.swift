import Foundation
import ReorderBasics
import TestSupport
import XCTest

@testable import ReorderTransport

/// The server on each event loop: lws' poll loop and libev (epoll).
final class EventLoopTests: XCTestCase {
  func testTheServerRunsOnTheLoopAsked() throws {
    for loop in TransportConfiguration.EventLoop.allCases {
      let fixture = try ServerFixture { $0.eventLoop = loop }
      defer { fixture.stop() }
      XCTAssertEqual(fixture.server.loop.waitsWith, loop)
      let socket = try WebSocket.connect(fixture.url("/ws/loop"))
      socket.send("over \(loop)")
      XCTAssertEqual(try receiveText(socket), "over \(loop)")
      socket.close()
    }
  }

  /// A tick moved earlier fires at its new time, not the old one. On libev, lws 4.1.6 re-arms its
  /// one timer for a sul due sooner than the armed one with `ev_timer_set` on the active watcher,
  /// which libev ignores: such a sul fired only when lws' timer next fired (here the 60 s tick).
  func testATickMovedEarlierFiresEarlyOnEveryLoop() throws {
    for loop in TransportConfiguration.EventLoop.allCases {
      let fixture = try ServerFixture { $0.eventLoop = loop }
      defer { fixture.stop() }
      let before = fixture.handler.ticks
      let server = fixture.server
      server.post { server.requestTick(afterSeconds: 60) }
      usleep(100_000)  // lws' timer is now armed for the 60 s tick
      server.post { server.requestTick(afterSeconds: 0.01) }
      XCTAssertTrue(waitUntil(timeout: 20) { fixture.handler.ticks > before }, "no tick on \(loop)")
    }
  }

  /// lws' own timeouts fire on every loop: a client that never answers the server's close frame
  /// is dropped (lws' close timeout, an `lws_sul` of its own, which libev's heartbeat lets fire).
  func testAClientThatNeverAnswersACloseIsDroppedOnEveryLoop() throws {
    for loop in TransportConfiguration.EventLoop.allCases {
      let fixture = try ServerFixture { $0.eventLoop = loop }
      defer { fixture.stop() }
      let silent = try RawSocket(port: fixture.port)
      XCTAssertTrue(try silent.websocketHandshake(path: "/ws/quiet").contains("101"))
      XCTAssertTrue(waitUntil { fixture.handler.opened.count == 1 })
      let id = try XCTUnwrap(fixture.handler.opened.keys.first)
      let server = fixture.server
      server.post { server.close(id, code: 1000, reason: "bye") }
      XCTAssertTrue(waitUntil(timeout: 30) { fixture.handler.closed.contains(id) }, "still open on \(loop)")
      silent.close()
    }
  }

  /// A context's libev loop is no longer found by its address once the context is destroyed: a
  /// context created next at the same address (an HTTP client's, on poll) would otherwise find
  /// the dying loop and arm its timers there, where they never fire (a webhook attempt's timeout
  /// never came, and its retry never went out).
  func testADestroyedContextsAddressNoLongerFindsItsLoop() throws {
    let found = Locked<[Bool]>([])
    ServiceLoop.afterContextDestroyed = { context in
      let loop = ServiceLoop.libevLoop(of: context)
      found.withLock { $0.append(loop != nil) }
    }
    defer { ServiceLoop.afterContextDestroyed = nil }
    let fixture = try ServerFixture { $0.eventLoop = .libev }
    fixture.stop()
    XCTAssertTrue(waitUntil { !found.withLock { $0 }.isEmpty })
    XCTAssertFalse(found.withLock { $0 }.contains(true), "a destroyed context's address still names its loop")
  }

  /// A stopped server's timers may be released after a new server's context took the old one's
  /// address: releasing them must not touch the new server's loop (it once stopped a watcher the
  /// new loop never had, and crashed).
  func testTimersOfAStoppedServerReleasedAfterANewOneStartedLeaveItAlone() throws {
    var previous: ServerFixture?
    for _ in 0..<40 {
      let fixture = try ServerFixture { $0.eventLoop = .libev }
      // A client open at the stop: the shutdown arms its flush timeout, still armed when the
      // last close lets the loop stop.
      let client = try WebSocket.connect(fixture.url("/ws/timers"))
      XCTAssertTrue(waitUntil { fixture.handler.opened.count == 1 })
      previous = nil  // the server before, stopped, is released while this one runs
      fixture.stop()
      client.close()
      previous = fixture
    }
    XCTAssertNotNil(previous)
  }
}
