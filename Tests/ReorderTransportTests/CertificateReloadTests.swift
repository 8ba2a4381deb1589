import Foundation
import ReorderTransport
import TestSupport
import XCTest

/// `WebSocketServer.reloadCertificate()`: new handshakes get the certificate on disk now, open
/// connections keep theirs, and a pair that cannot be used changes nothing.
final class CertificateReloadTests: XCTestCase {
  func testNewHandshakesGetTheNewCertificateAndOpenConnectionsStay() throws {
    let fixture = try ServerFixture(tls: true)
    defer { fixture.stop() }
    let (certificate, key) = try (XCTUnwrap(fixture.certificate), XCTUnwrap(fixture.key))
    let first = try certificateFingerprint(ofFile: certificate)
    XCTAssertEqual(try presentedCertificateFingerprint(port: fixture.port), first)
    let open = try WebSocket.connect(fixture.url("/ws/kept", secure: true), allowSelfSigned: true)

    let next = try TemporaryDirectory()
    defer { next.remove() }
    let (newCertificate, newKey) = try makeSelfSignedCertificate(in: next.path)
    try replace(certificate, with: newCertificate)
    try replace(key, with: newKey)
    try fixture.server.reloadCertificate()

    let second = try certificateFingerprint(ofFile: certificate)
    XCTAssertNotEqual(first, second)
    XCTAssertEqual(
      try presentedCertificateFingerprint(port: fixture.port), second, "a new handshake gets the new certificate")
    open.send("still here")
    XCTAssertEqual(try receiveText(open), "still here", "the connection made before the reload stays open")
    let fresh = try WebSocket.connect(fixture.url("/ws/fresh", secure: true), allowSelfSigned: true)
    fresh.send("new")
    XCTAssertEqual(try receiveText(fresh), "new")
    open.close()
    fresh.close()
  }

  func testAKeyThatDoesNotFitKeepsTheOldCertificate() throws {
    let fixture = try ServerFixture(tls: true)
    defer { fixture.stop() }
    let (certificate, key) = try (XCTUnwrap(fixture.certificate), XCTUnwrap(fixture.key))
    let first = try certificateFingerprint(ofFile: certificate)
    let other = try TemporaryDirectory()
    defer { other.remove() }
    let (otherCertificate, _) = try makeSelfSignedCertificate(in: other.path)
    try replace(certificate, with: otherCertificate)  // the old key no longer fits it
    XCTAssertThrowsError(try fixture.server.reloadCertificate())
    XCTAssertEqual(try presentedCertificateFingerprint(port: fixture.port), first, "still the certificate it had")

    try Data("not a key".utf8).write(to: URL(fileURLWithPath: key))
    XCTAssertThrowsError(try fixture.server.reloadCertificate())
    try FileManager.default.removeItem(atPath: key)
    XCTAssertThrowsError(try fixture.server.reloadCertificate())
    XCTAssertEqual(try presentedCertificateFingerprint(port: fixture.port), first)
    let socket = try WebSocket.connect(fixture.url("/ws/after", secure: true), allowSelfSigned: true)
    socket.send("ok")
    XCTAssertEqual(try receiveText(socket), "ok")
    socket.close()
  }

  func testAPlainServerHasNoCertificateToReload() throws {
    let fixture = try ServerFixture()
    defer { fixture.stop() }
    XCTAssertThrowsError(try fixture.server.reloadCertificate())
  }

  private func replace(_ path: String, with source: String) throws {
    try FileManager.default.removeItem(atPath: path)
    try FileManager.default.copyItem(atPath: source, toPath: path)
  }
}
