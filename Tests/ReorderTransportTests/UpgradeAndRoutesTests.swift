import Foundation
import ReorderTransport
import TestSupport
import XCTest

/// The two seams the transport offers the server: upgrade requests put to `admit` before they are
/// websockets, and HTTP requests put to `route` / `handle` with their bodies.
final class UpgradeSeamTests: XCTestCase {
  func testTheHandlerSeesPathQueryHeadersAndPeerOfAnUpgrade() throws {
    let fixture = try ServerFixture()
    defer { fixture.stop() }
    let raw = try RawSocket(port: fixture.port)
    let status = try raw.websocketHandshake(
      path: "/ws/room-1?since=4&epoch=e1",
      headers: [
        ("Origin", "https://board.example.com"), ("Cookie", "a=1"), ("Authorization", "Bearer t"),
        ("Sec-WebSocket-Protocol", "reorder"), ("X-Forwarded-For", "203.0.113.9"), ("User-Agent", "probe/1"),
        ("X-Forwarded-Proto", "https"), ("X-Forwarded-Host", "boards.example.com"),
        ("Forwarded", "for=203.0.113.9;proto=https"),
      ])
    XCTAssertTrue(status.contains("101"), status)
    XCTAssertTrue(waitUntil { fixture.handler.opened.count == 1 })
    let request = try XCTUnwrap(fixture.handler.upgrades.first)
    XCTAssertEqual(request.path, "/ws/room-1")
    XCTAssertEqual(request.query, "since=4&epoch=e1")
    XCTAssertEqual(request.origin, "https://board.example.com")
    XCTAssertEqual(request.host, "127.0.0.1")
    XCTAssertEqual(request.cookie, "a=1")
    XCTAssertEqual(request.authorization, "Bearer t")
    XCTAssertEqual(request.webSocketProtocol, "reorder")
    XCTAssertEqual(request.forwardedFor, "203.0.113.9")
    XCTAssertEqual(request.userAgent, "probe/1")
    XCTAssertEqual(request.forwardedProto, "https")
    XCTAssertEqual(request.forwardedHost, "boards.example.com")
    XCTAssertEqual(request.forwarded, "for=203.0.113.9;proto=https")
    XCTAssertEqual(request.peerAddress, "127.0.0.1")
    XCTAssertEqual(Array(fixture.handler.opened.values), ["room-1"], "the accept context reaches connectionOpened")
  }

  func testARefusedUpgradeGetsItsHTTPStatusAndNeverBecomesAWebSocket() throws {
    let fixture = try ServerFixture()
    defer { fixture.stop() }
    for status in [403, 429] {
      let raw = try RawSocket(port: fixture.port)
      let line = try raw.websocketHandshake(path: "/refuse/\(status)")
      XCTAssertTrue(line.hasPrefix("HTTP/1.1 \(status) "), line)
      let rest = String(decoding: try raw.readToEnd(), as: UTF8.self)
      XCTAssertTrue(rest.contains("refused by the test handler"), rest)
    }
    XCTAssertTrue(fixture.handler.opened.isEmpty)
    XCTAssertEqual(fixture.server.connectionCount, 0)
    let refused = ManagedCounter()
    let counted = DispatchSemaphore(value: 0)
    let server = fixture.server
    server.post {
      for _ in 0..<server.statistics.refused { refused.increment() }
      counted.signal()
    }
    counted.wait()
    XCTAssertEqual(refused.value, 2, "refused upgrades are counted")
    // The server goes on serving websockets.
    let socket = try WebSocket.connect(fixture.url("/ws/room-1"))
    socket.send("still here")
    XCTAssertEqual(try receiveText(socket), "still here")
  }
}

final class HTTPSeamTests: XCTestCase {
  func testARoutedRequestGetsItsBodyQueryAndMethodThrough() throws {
    let fixture = try ServerFixture()
    defer { fixture.stop() }
    let body = Array("{\"ops\":[1,2,3]}".utf8)
    let reply = try httpRequest(port: fixture.port, method: "POST", rawPath: "/echo?limit=5&cursor=x", body: body)
    XCTAssertEqual(reply.status, 200)
    XCTAssertEqual(reply.body, body)
    XCTAssertEqual(reply.headers["x-method"], "POST")
    XCTAssertEqual(reply.headers["x-query"], "limit=5&cursor=x")
    XCTAssertEqual(reply.headers["content-type"], "application/octet-stream")
    XCTAssertEqual(reply.headers["x-content-type-options"], "nosniff", "the security headers go on every response")
    for method in ["PUT", "PATCH", "DELETE"] {
      let other = try httpRequest(port: fixture.port, method: method, rawPath: "/echo", body: Array(method.utf8))
      XCTAssertEqual(other.status, 200, method)
      XCTAssertEqual(other.headers["x-method"], method)
      XCTAssertEqual(other.text, method)
    }
    let empty = try httpRequest(port: fixture.port, method: "POST", rawPath: "/echo", body: [])
    XCTAssertEqual(empty.status, 200)
    XCTAssertTrue(empty.body.isEmpty)
  }

  func testABodyOverTheRoutesLimitIs413AndTheResponseArrives() throws {
    let fixture = try ServerFixture()
    defer { fixture.stop() }
    let big = [UInt8](repeating: 0x61, count: 200_000)
    let reply = try httpRequest(port: fixture.port, method: "POST", rawPath: "/echo", body: big)
    XCTAssertEqual(reply.status, 413)
    XCTAssertTrue(reply.text.contains("limit \(EchoHandler.echoLimit) bytes"), reply.text)
    let fits = try httpRequest(
      port: fixture.port, method: "POST", rawPath: "/echo", body: [UInt8](repeating: 1, count: EchoHandler.echoLimit))
    XCTAssertEqual(fits.status, 200)
    XCTAssertEqual(fits.body.count, EchoHandler.echoLimit)
  }

  func testAPostPutOrPatchWithoutContentLengthHasAnEmptyBodyAndItsConnectionClosesAfterTheAnswer() throws {
    let fixture = try ServerFixture()
    defer { fixture.stop() }
    for method in ["POST", "PUT", "PATCH"] {
      // Kept alive as far as the client is concerned: the server ends the connection after the
      // answer (lws would read whatever came next as this request's body).
      let socket = try RawSocket(port: fixture.port)
      try socket.write("\(method) /echo?q=1 HTTP/1.1\r\nHost: 127.0.0.1:\(fixture.port)\r\n\r\n")
      let reply = try parseHTTPResponse(try socket.readToEnd())
      XCTAssertEqual(reply.status, 200, method)
      XCTAssertEqual(reply.headers["x-method"], method)
      XCTAssertEqual(reply.headers["x-query"], "q=1")
      XCTAssertEqual(reply.body, [], method)
      socket.close()
    }
  }

  func testEveryStatusLineCarriesItsReasonPhrase() throws {
    let fixture = try ServerFixture()
    defer { fixture.stop() }
    XCTAssertEqual(try httpGet(port: fixture.port, rawPath: "/later").statusLine, "HTTP/1.1 202 Accepted")
    XCTAssertEqual(try httpGet(port: fixture.port, rawPath: "/healthz").statusLine, "HTTP/1.1 200 OK")
    XCTAssertEqual(try httpGet(port: fixture.port, rawPath: "/missing").statusLine, "HTTP/1.1 404 Not Found")
    let big = try httpRequest(
      port: fixture.port, method: "POST", rawPath: "/echo", body: [UInt8](repeating: 1, count: 200_000))
    XCTAssertEqual(big.statusLine, "HTTP/1.1 413 Content Too Large")
    XCTAssertEqual(
      try httpRequest(port: fixture.port, method: "DELETE", rawPath: "/app.js").statusLine,
      "HTTP/1.1 405 Method Not Allowed")
  }

  func testAResponseMayComeLaterFromAnotherThread() throws {
    let fixture = try ServerFixture()
    defer { fixture.stop() }
    let replies = try (0..<5).map { _ in try httpGet(port: fixture.port, rawPath: "/later") }
    XCTAssertEqual(replies.map(\.status), Array(repeating: 202, count: 5))
    XCTAssertEqual(replies.first?.text, "answered later\n")
  }

  func testUnroutedPathsGoToTheStaticFilesAndOtherMethodsThereAre405() throws {
    let fixture = try ServerFixture()
    defer { fixture.stop() }
    XCTAssertEqual(try httpGet(port: fixture.port, rawPath: "/app.js").status, 200)
    let post = try httpRequest(port: fixture.port, method: "POST", rawPath: "/app.js", body: [1])
    XCTAssertEqual(post.status, 405)
    XCTAssertEqual(post.headers["allow"], "GET, HEAD")
  }

  func testTheResponderAnswersOnce() {
    let count = ManagedCounter()
    let responder = HTTPResponder { _ in count.increment() }
    responder.respond(.text(200, "one"))
    responder.respond(.text(500, "two"))
    XCTAssertTrue(responder.hasResponded)
    XCTAssertEqual(count.value, 1)
  }

  func testQueryItemsSplitOnAmpersandAndEquals() {
    let head = HTTPRequestHead(method: "GET", path: "/x", query: "since=4&flag&limit=10")
    XCTAssertEqual(head.queryValue("since"), "4")
    XCTAssertEqual(head.queryValue("flag"), "")
    XCTAssertEqual(head.queryValue("limit"), "10")
    XCTAssertNil(head.queryValue("other"))
    XCTAssertTrue(HTTPRequestHead(method: "GET", path: "/x").queryItems.isEmpty)
  }
}

/// A thread-safe counter for closures.
final class ManagedCounter: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0
  func increment() {
    lock.lock()
    count += 1
    lock.unlock()
  }
  var value: Int {
    lock.lock()
    defer { lock.unlock() }
    return count
  }
}
