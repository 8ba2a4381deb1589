import Foundation
import TestSupport
import XCTest

@testable import ReorderTransport

/// `HTTPClient` against the transport's own server (plain and TLS) and against a socket that never
/// answers, all on 127.0.0.1.
final class HTTPClientTests: XCTestCase {
  /// Sends `request` and waits for its outcome.
  func send(_ client: HTTPClient, _ request: HTTPClientRequest) -> Result<HTTPClientResponse, HTTPClientError>? {
    let outcome = SharedValue<Result<HTTPClientResponse, HTTPClientError>?>(nil)
    client.send(request) { outcome.set($0) }
    _ = waitUntil(timeout: 10) { outcome.value != nil }
    return outcome.value
  }

  func testParsesHTTPURLs() {
    XCTAssertEqual(
      WebSocketURL("http://127.0.0.1:9000/hooks?x=1", schemes: WebSocketURL.httpSchemes)?.path, "/hooks?x=1")
    XCTAssertEqual(WebSocketURL("https://example.org", schemes: WebSocketURL.httpSchemes)?.port, 443)
    XCTAssertTrue(HTTPClient.accepts(url: "http://[::1]:80/"))
    XCTAssertFalse(HTTPClient.accepts(url: "ws://127.0.0.1/"))
    XCTAssertFalse(HTTPClient.accepts(url: "http://:80/"))
  }

  func testPostsTheBodyAndHeadersAndReadsTheAnswer() throws {
    let fixture = try ServerFixture()
    defer { fixture.stop() }
    let client = try HTTPClient(supportsTLS: false)
    defer { client.shutdown() }
    let body = Array(#"{"type":"board.changed"}"#.utf8)
    let outcome = send(
      client,
      HTTPClientRequest(
        url: "http://127.0.0.1:\(fixture.port)/echo?n=1", headers: [("content-type", "application/json")], body: body))
    guard case .success(let response) = outcome else { return XCTFail("no response: \(String(describing: outcome))") }
    XCTAssertEqual(response.status, 200)
    XCTAssertEqual(response.body, body)
    let missing = send(client, HTTPClientRequest(url: "http://127.0.0.1:\(fixture.port)/nothing-here", method: "GET"))
    guard case .success(let notFound) = missing else { return XCTFail("no response: \(String(describing: missing))") }
    XCTAssertEqual(notFound.status, 404, "any status is an answer")
  }

  func testHTTPSWithASelfSignedCertificate() throws {
    let fixture = try ServerFixture(tls: true)
    defer { fixture.stop() }
    let client = try HTTPClient(allowSelfSigned: true)
    defer { client.shutdown() }
    let outcome = send(
      client, HTTPClientRequest(url: "https://127.0.0.1:\(fixture.port)/echo", body: Array("tls".utf8)))
    guard case .success(let response) = outcome else { return XCTFail("no response: \(String(describing: outcome))") }
    XCTAssertEqual(response.status, 200)
    XCTAssertEqual(response.body, Array("tls".utf8))
  }

  func testRefusedConnectionsAndSilentServersFail() throws {
    let client = try HTTPClient(supportsTLS: false)
    defer { client.shutdown() }
    let refused = send(client, HTTPClientRequest(url: "http://127.0.0.1:\(freePort())/"))
    guard case .failure(.connectFailed) = refused else {
      return XCTFail("expected connectFailed: \(String(describing: refused))")
    }
    guard case .failure(.invalidURL) = send(client, HTTPClientRequest(url: "ftp://127.0.0.1/")) else {
      return XCTFail("expected invalidURL")
    }
    // A listening socket nobody accepts from: the connection is made (the backlog), no answer comes.
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(listener) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0
      }
    }
    XCTAssertTrue(bound && listen(listener, 8) == 0)
    let silent = send(
      client, HTTPClientRequest(url: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))/", timeoutSeconds: 0.3))
    guard case .failure(.timeout) = silent else { return XCTFail("expected timeout: \(String(describing: silent))") }
  }
}
