import Foundation
import TestSupport
import XCTest

@testable import ReorderTransport

/// A connection with several messages queued gets them framed back to back in one write
/// (`FrameCork`); each must still arrive as one whole message, in order, whatever its length
/// encoding (7-, 16- or 64-bit), across a small socket buffer — with corking and without.
final class WriteBurstTests: XCTestCase {
  /// Lengths on both sides of the 125/126 and 65,535/65,536 header boundaries, many small ones,
  /// and some larger than the cork (which go out alone).
  static let sizes: [Int] =
    [0, 1, 124, 125, 126, 127, 65_534, 65_535, 65_536, 65_537]
    + (0..<300).map { $0 % 50 == 7 ? 100_000 : 10 + $0 % 200 }

  func testABurstQueuedInOnePassArrivesWholeAndInOrderCorked() throws {
    let counts = try burst(corkBytes: 32 * 1024)
    XCTAssertGreaterThan(counts.writes, 0, "nothing was corked")
    XCTAssertGreaterThan(counts.messages, counts.writes, "a corked write carried one message only")
  }

  func testABurstArrivesWholeAndInOrderWithCorkingOff() throws {
    let counts = try burst(corkBytes: 0)
    XCTAssertEqual(counts.writes, 0)
    XCTAssertEqual(counts.messages, 0)
  }

  func testACorkedBurstArrivesWholeAndInOrderOverTLS() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let counts = try burst(corkBytes: 32 * 1024, tls: try makeSelfSignedCertificate(in: directory.path))
    XCTAssertGreaterThan(counts.writes, 0, "nothing was corked")
  }

  /// Queues `sizes` in one service-thread turn, reads them back, returns the cork counters.
  private func burst(
    corkBytes: Int, tls: (certificate: String, key: String)? = nil
  ) throws -> (writes: Int, messages: Int) {
    let fixture = try ServerFixture {
      $0.maxQueueBytes = 8 << 20
      $0.socketSendBufferBytes = 8_192
      $0.corkBytes = corkBytes
      $0.tlsCertificatePath = tls?.certificate
      $0.tlsPrivateKeyPath = tls?.key
    }
    defer { fixture.stop() }
    let client = try WebSocket.connect(fixture.url("/ws/room-1", secure: tls != nil), allowSelfSigned: tls != nil)
    XCTAssertTrue(waitUntil { fixture.handler.opened.count == 1 })
    let server = fixture.server
    let handler = fixture.handler
    let sizes = Self.sizes
    server.post {
      for peer in handler.connections(in: "room-1") {
        for (index, size) in sizes.enumerated() {
          let prefix = Array("\(index):".utf8)
          server.send(prefix + [UInt8](repeating: UInt8(ascii: "x"), count: max(0, size - prefix.count)), to: peer)
        }
      }
    }
    for (index, size) in sizes.enumerated() {
      let text = try receiveText(client, timeout: 10)
      XCTAssertTrue(text.hasPrefix("\(index):"), "message \(index) missing or out of order")
      XCTAssertEqual(text.utf8.count, max(size, "\(index):".utf8.count), "message \(index) not whole")
    }
    let counts = SharedValue((writes: 0, messages: 0))
    let done = DispatchSemaphore(value: 0)
    server.post {
      counts.set((server.statistics.corkedWrites, server.statistics.corkedMessages))
      done.signal()
    }
    done.wait()
    return counts.value
  }
}

/// The framing of `FrameCork` itself (RFC 6455 §5.2, unmasked server frames).
final class FrameCorkTests: XCTestCase {
  func testHeadersUseTheShortestLengthEncoding() {
    XCTAssertEqual(FrameCork.headerCount(0), 2)
    XCTAssertEqual(FrameCork.headerCount(125), 2)
    XCTAssertEqual(FrameCork.headerCount(126), 4)
    XCTAssertEqual(FrameCork.headerCount(65_535), 4)
    XCTAssertEqual(FrameCork.headerCount(65_536), 10)
  }

  func testFramesSitBackToBackWithFinOpcodeAndLength() {
    let cork = FrameCork(limitBytes: 1 << 20, headroom: 16)
    let text = [UInt8]("hi".utf8)
    let binary = [UInt8](repeating: 7, count: 300)
    let large = [UInt8](repeating: 1, count: 70_000)
    text.withUnsafeBytes { cork.append($0, binary: false) }
    binary.withUnsafeBytes { cork.append($0, binary: true) }
    large.withUnsafeBytes { cork.append($0, binary: false) }
    XCTAssertEqual(cork.frames, 3)
    let bytes = Array(UnsafeBufferPointer(start: cork.bytes, count: cork.count))
    XCTAssertEqual(bytes.count, 2 + 2 + 4 + 300 + 10 + 70_000)
    XCTAssertEqual(Array(bytes[0..<4]), [0x81, 2, UInt8(ascii: "h"), UInt8(ascii: "i")])
    XCTAssertEqual(Array(bytes[4..<8]), [0x82, 126, 0x01, 0x2C])
    XCTAssertEqual(bytes[8], 7)
    let third = 8 + 300
    XCTAssertEqual(Array(bytes[third..<third + 10]), [0x81, 127, 0, 0, 0, 0, 0, 0x01, 0x11, 0x70])
    XCTAssertEqual(bytes.last, 1)
  }

  func testFitsStopsAtTheByteAndMessageLimitsAndResetEmpties() {
    let cork = FrameCork(limitBytes: 100, limitFrames: 3, headroom: 16)
    XCTAssertTrue(cork.fits(98))
    XCTAssertFalse(cork.fits(99))
    let small = [UInt8](repeating: 0, count: 10)
    for _ in 0..<3 { small.withUnsafeBytes { cork.append($0, binary: false) } }
    XCTAssertEqual(cork.count, 36)
    XCTAssertFalse(cork.fits(1), "a fourth message is over limitFrames")
    cork.reset()
    XCTAssertEqual(cork.count, 0)
    XCTAssertEqual(cork.frames, 0)
    XCTAssertTrue(cork.fits(98))
  }
}

/// Writes happen at the end of the pass that sent (`flushSends`), to sockets that may be
/// dying: peers that reset their connection in the middle of a stream of broadcasts must harm
/// nobody — no crash, and the others keep receiving everything, in order.
final class FlushChurnTests: XCTestCase {
  func testBroadcastsToPeersThatResetMidStreamHarmNobody() throws {
    let fixture = try ServerFixture()
    defer { fixture.stop() }
    let sender = try WebSocket.connect(fixture.url("/ws/churn"))
    let listener = try WebSocket.connect(fixture.url("/ws/churn"))
    XCTAssertTrue(waitUntil { fixture.handler.opened.count == 2 })
    var sent = 0
    for _ in 0..<20 {
      // Ten peers join, are broadcast to, and reset (RST: linger 0) while the stream goes on.
      let peers = try (0..<10).map { _ in try RawSocket(port: fixture.port) }
      for peer in peers { XCTAssertTrue(try peer.websocketHandshake(path: "/ws/churn").contains("101")) }
      for _ in 0..<10 {
        sender.send("broadcast:\(sent)")
        sent += 1
      }
      for peer in peers {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(peer.fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        peer.close()
      }
    }
    for index in 0..<sent {
      XCTAssertEqual(try receiveText(listener, timeout: 10), "\(index)")
    }
    XCTAssertTrue(waitUntil { fixture.handler.closed.count == 200 }, "every reset peer was closed")
    let late = try WebSocket.connect(fixture.url("/ws/churn"))
    late.send("still served")
    XCTAssertEqual(try receiveText(late), "still served")
  }
}

/// A large fan-out is shared between the service thread and `ParallelSender`, which `send()`s the
/// framed bytes directly; what a socket does not take must go on through lws, in order.
final class ParallelFanoutTests: XCTestCase {
  func testAFanOutToManyConnectionsArrivesWholeAndInOrderEvenWhereASocketIsFull() throws {
    let fixture = try ServerFixture {
      $0.socketSendBufferBytes = 8_192
      $0.maxQueueBytes = 64 << 20
    }
    defer { fixture.stop() }
    let readers = try (0..<40).map { _ in try WebSocket.connect(fixture.url("/ws/fan")) }
    // A member that completes the handshake and reads nothing until the end: its socket fills up,
    // and the parallel send to it is cut short, the rest handed to lws.
    let stalled = try RawSocket(port: fixture.port, receiveBufferBytes: 4_096)
    XCTAssertTrue(try stalled.websocketHandshake(path: "/ws/fan").contains("101"))
    XCTAssertTrue(waitUntil { fixture.handler.opened.count == 41 })
    let server = fixture.server
    let handler = fixture.handler
    let messages = 200
    let payload = String(repeating: "p", count: 1_500)
    for index in 0..<messages {
      // One broadcast per pass of the service loop: each is a fan-out of one shared frame.
      let done = DispatchSemaphore(value: 0)
      server.post {
        server.broadcast(Array("\(index):\(payload)".utf8), to: handler.connections(in: "fan"))
        done.signal()
      }
      done.wait()
    }
    for reader in readers {
      for index in 0..<messages {
        let text = try receiveText(reader, timeout: 10)
        XCTAssertTrue(text.hasPrefix("\(index):"), "message \(index) missing or out of order")
        XCTAssertEqual(text.utf8.count, "\(index):".utf8.count + payload.utf8.count)
      }
    }
    let fanouts = SharedValue(0)
    let counted = DispatchSemaphore(value: 0)
    server.post {
      fanouts.set(server.statistics.parallelFanouts)
      counted.signal()
    }
    counted.wait()
    XCTAssertGreaterThan(fanouts.value, 0, "no fan-out was shared")
    // The member that stalled now reads: everything, whole and in order, including the frame whose
    // parallel send was cut short (its rest went through lws) and those queued after it.
    for index in 0..<messages {
      let frame = try XCTUnwrap(try stalled.readFrame(), "message \(index) missing")
      XCTAssertEqual(frame.opcode, 0x1)
      let text = String(decoding: frame.payload, as: UTF8.self)
      XCTAssertTrue(text.hasPrefix("\(index):"), "message \(index) out of order")
      XCTAssertEqual(frame.payload.count, "\(index):".utf8.count + payload.utf8.count)
    }
    stalled.close()
  }
}
