import Foundation
import TestSupport
import XCTest

final class TestSupportTests: XCTestCase {
  func testChildProcessWaitsForItsListeningLineAndStopsBySignal() throws {
    let child = try ChildProcess(
      executable: "/bin/sh",
      arguments: [
        "-c", "trap 'echo bye; exit 0' TERM; echo 'listening on http://127.0.0.1:1/'; while :; do sleep 1; done",
      ])
    defer { child.terminate() }
    XCTAssertEqual(child.waitForListening(timeout: 10), "listening on http://127.0.0.1:1/")
    child.send(signal: SIGTERM)
    XCTAssertEqual(child.waitForExit(timeout: 10), 0)
    XCTAssertTrue(waitUntil(timeout: 5) { child.output.contains("bye") })
  }

  func testSelfSignedCertificateIsMadeWithOpenSSL() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let (certificate, key) = try makeSelfSignedCertificate(in: directory.path)
    XCTAssertTrue(try String(contentsOfFile: certificate, encoding: .utf8).contains("BEGIN CERTIFICATE"))
    XCTAssertTrue(try String(contentsOfFile: key, encoding: .utf8).contains("PRIVATE KEY"))
  }

  func testFreePortIsBindable() throws {
    let port = freePort()
    XCTAssertGreaterThan(port, 0)
    XCTAssertThrowsError(try RawSocket(port: port), "nothing listens there")
  }
}
