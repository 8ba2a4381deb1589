import XCTest

@testable import ReorderTransport

/// Reading a `SocketBacklog` from the bytes of Linux' `struct tcp_info` (what `getsockopt`
/// fills), without a socket: offsets as in include/uapi/linux/tcp.h.
final class SocketBacklogTests: XCTestCase {
  /// A `tcp_info` of `length` bytes with the given fields set.
  private func tcpInfo(
    length: Int = 232, mss: UInt32 = 65_483, unackedSegments: UInt32 = 1, notSent: UInt32 = 0,
    bytesAcked: UInt64 = 0, bytesSent: UInt64 = 0, bytesRetransmitted: UInt64 = 0, window: UInt32 = 65_536
  ) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: length)
    func put<T: FixedWidthInteger>(_ value: T, at offset: Int) {
      guard offset + MemoryLayout<T>.size <= length else { return }
      withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(offset..<offset + $0.count, with: $0) }
    }
    put(mss, at: 16)
    put(unackedSegments, at: 24)
    put(bytesAcked, at: 120)
    put(notSent, at: 144)
    put(bytesSent, at: 200)
    put(bytesRetransmitted, at: 208)
    put(window, at: 228)
    return bytes
  }

  private func backlog(_ bytes: [UInt8]) -> SocketBacklog? {
    bytes.withUnsafeBytes { SocketBacklog(tcpInfo: $0) }
  }

  func testInFlightIsTheBytesSentAndNotAcknowledgedNotSegmentsTimesTheMSS() throws {
    // Loopback: an MSS of 64 KiB, one small frame of 120 bytes not acknowledged yet (a delayed
    // ACK). In flight is those 120 bytes, not one MSS: a reader that keeps up is not a slow one.
    let sample = try XCTUnwrap(
      backlog(tcpInfo(unackedSegments: 1, notSent: 300, bytesAcked: 10_000, bytesSent: 10_120)))
    XCTAssertEqual(sample.inFlightBytes, 120)
    XCTAssertEqual(sample.unsentBytes, 300)
    XCTAssertEqual(sample.peerWindowBytes, 65_536)
  }

  func testRetransmittedBytesAreNotCountedTwice() throws {
    // 4,000 bytes sent once, 1,000 of them again: 4,000 distinct, 2,500 acknowledged.
    let sample = try XCTUnwrap(
      backlog(tcpInfo(unackedSegments: 2, bytesAcked: 2_500, bytesSent: 5_000, bytesRetransmitted: 1_000)))
    XCTAssertEqual(sample.inFlightBytes, 1_500)
  }

  func testAKernelWithoutByteCountsFallsBackToSegmentsTimesTheMSS() throws {
    // Before Linux 4.19 (no tcpi_bytes_sent) and 5.4 (no tcpi_snd_wnd): 160 bytes reported.
    let sample = try XCTUnwrap(backlog(tcpInfo(length: 160, mss: 1_448, unackedSegments: 3, notSent: 10)))
    XCTAssertEqual(sample.inFlightBytes, 3 * 1_448)
    XCTAssertEqual(sample.unsentBytes, 10)
    XCTAssertNil(sample.peerWindowBytes)
  }

  func testAKernelTooOldToReportUnsentBytesGivesNothing() {
    XCTAssertNil(backlog(tcpInfo(length: 144)))
  }
}
