import Foundation
import ReorderBasics
import ReorderTransport
import TestSupport
import Testing

@testable import ReorderLoad

@Suite("The load tool's epoll client: SHA-1, handshake, frames")
struct EpollClientPartsTests {
  func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

  @Test("SHA-1 of the FIPS 180 examples, and of a message across a block boundary")
  func sha1() {
    #expect(hex(SHA1.digest([])) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
    #expect(hex(SHA1.digest(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
    #expect(
      hex(SHA1.digest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
        == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
    #expect(hex(SHA1.digest([UInt8](repeating: 0x61, count: 1_000))) == "291e9a6c66994949b57ba5e650361e98fc36b1ba")
  }

  @Test("The accept key of RFC 6455's example; a request with and without a subprotocol")
  func request() {
    #expect(ClientHandshake.accept(for: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    let nonce = Array("the sample nonce".utf8)
    let plain = ClientHandshake(host: "127.0.0.1", port: 8080, path: "/ws/a?x=1", subprotocol: nil, nonce: nonce)
    let text = String(decoding: plain.request, as: UTF8.self)
    #expect(text.hasPrefix("GET /ws/a?x=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"))
    #expect(text.contains("Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"))
    #expect(text.hasSuffix("Sec-WebSocket-Version: 13\r\n\r\n"))
    #expect(!text.contains("Protocol"))
    let mirror = ClientHandshake(host: "::1", port: 7681, path: "/", subprotocol: "lws-mirror-protocol", nonce: nonce)
    let mirrorText = String(decoding: mirror.request, as: UTF8.self)
    #expect(mirrorText.contains("Host: [::1]:7681\r\n"))
    #expect(mirrorText.contains("Sec-WebSocket-Protocol: lws-mirror-protocol\r\n"))
  }

  func check(_ handshake: ClientHandshake, _ answer: String) -> ClientHandshake.Outcome {
    Array(answer.utf8).withUnsafeBytes { handshake.check($0) }
  }

  @Test("An answer is accepted only when complete, 101, upgraded, with the right accept key and subprotocol")
  func answers() {
    let nonce = Array("the sample nonce".utf8)
    let handshake = ClientHandshake(host: "h", port: 1, path: "/", subprotocol: nil, nonce: nonce)
    let good =
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: WebSocket\r\nConnection: Upgrade\r\n"
      + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n"
    #expect(check(handshake, good) == .accepted(headerBytes: good.utf8.count))
    #expect(check(handshake, good + "\u{81}\u{0}") == .accepted(headerBytes: good.utf8.count))
    #expect(check(handshake, String(good.dropLast(2))) == .incomplete)
    #expect(check(handshake, "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n") == .refused("HTTP 403 Forbidden"))
    #expect(check(handshake, "SSH-2.0-OpenSSH\r\n\r\n") == .refused("not an HTTP answer: 'SSH-2.0-OpenSSH'"))
    let wrongKey = good.replacingOccurrences(of: "s3pP", with: "AAAA")
    #expect(check(handshake, wrongKey) == .refused("101 with a wrong Sec-WebSocket-Accept"))
    let withProtocol = ClientHandshake(host: "h", port: 1, path: "/", subprotocol: "p", nonce: nonce)
    #expect(check(withProtocol, good) == .refused("101 with subprotocol '', not 'p'"))
    let agreed = good.replacingOccurrences(of: "\r\n\r\n", with: "\r\nSec-WebSocket-Protocol: p\r\n\r\n")
    #expect(check(withProtocol, agreed) == .accepted(headerBytes: agreed.utf8.count))
    #expect(check(handshake, String(repeating: "x", count: 16_385)) == .refused("handshake answer longer than 16 KB"))
  }

  /// What the epoll client connects to for `url` (it takes plain `ws://` only).
  func parts(_ url: String) -> String? {
    WebSocketURL(url).flatMap { $0.secure ? nil : "\($0.host) \($0.port) \($0.path)" }
  }

  @Test("ws:// targets: host, port, path; IPv6; anything else is refused")
  func targets() {
    #expect(parts("ws://127.0.0.1:8080/ws/a") == "127.0.0.1 8080 /ws/a")
    #expect(parts("ws://[::1]:81") == "::1 81 /")
    #expect(parts("ws://localhost/?mirror=a") == "localhost 80 /?mirror=a")
    #expect(parts("wss://127.0.0.1:1/") == nil)
    #expect(parts("ws://:80/") == nil)
    #expect(parts("ws://h:0/") == nil)
    #expect(parts("ws://h:x/") == nil)
  }
}

@Suite("The load tool's epoll client: reading server frames")
struct ServerFrameReaderTests {
  /// An unmasked server frame.
  func frame(_ opcode: UInt8, _ payload: [UInt8], final: Bool = true) -> [UInt8] {
    var bytes: [UInt8] = [(final ? 0x80 : 0) | opcode]
    if payload.count < 126 {
      bytes.append(UInt8(payload.count))
    } else if payload.count < 65_536 {
      bytes += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
    } else {
      bytes.append(127)
      for shift in stride(from: 56, through: 0, by: -8) {
        bytes.append(UInt8(truncatingIfNeeded: payload.count >> shift))
      }
    }
    return bytes + payload
  }

  func text(_ string: String, final: Bool = true, continuation: Bool = false) -> [UInt8] {
    frame(continuation ? 0 : 1, Array(string.utf8), final: final)
  }

  /// Feeds `bytes` in pieces of `step` bytes, keeping what each read leaves, as the socket does.
  func read(_ bytes: [UInt8], step: Int, max: Int = 1 << 20) -> (
    events: [ServerFrameReader.Event], failure: String?, code: UInt16?
  ) {
    var reader = ServerFrameReader(maxMessageBytes: max)
    var pending: [UInt8] = []
    var events: [ServerFrameReader.Event] = []
    for start in stride(from: 0, to: bytes.count, by: step) {
      pending += bytes[start..<min(bytes.count, start + step)]
      let progress = pending.withUnsafeBytes {
        reader.read($0) { event in
          events.append(event)
          return true
        }
      }
      if let failure = progress.failure { return (events, failure.reason, failure.code) }
      pending.removeFirst(progress.consumed)
    }
    #expect(pending.isEmpty)
    return (events, nil, nil)
  }

  @Test("Messages of every length class, fragments with a ping between them, and a close, in any read sizes")
  func messages() {
    let medium = String(repeating: "m", count: 300)
    let large = String(repeating: "L", count: 70_000)
    let stream =
      text("hi") + text(medium) + text(large) + text("frag", final: false) + frame(9, [1, 2])
      + text("ment", final: false, continuation: true) + text("ed", continuation: true) + frame(2, [0, 1, 2])
      + frame(10, []) + frame(8, [0x03, 0xE8] + Array("bye".utf8))
    let expected: [ServerFrameReader.Event] = [
      .text("hi"), .text(medium), .text(large), .ping([1, 2]), .text("fragmented"), .binary(byteCount: 3), .pong,
      .close(code: 1000, reason: "bye"),
    ]
    for step in [1, 2, 3, 7, 125, 4_096, 65_536, stream.count] {
      let outcome = read(stream, step: step)
      #expect(outcome.failure == nil, "step \(step)")
      #expect(outcome.events == expected, "step \(step)")
    }
    #expect(read(frame(8, []), step: 10).events == [.close(code: nil, reason: "")])
  }

  @Test("Protocol violations fail the read: masks, reserved bits, bad control frames, stray continuations, oversize")
  func violations() {
    #expect(read([0x81, 0x82, 1, 2, 3, 4, 5, 6], step: 8).failure == "a masked frame from the server")
    #expect(read([0xC1, 0x00], step: 2).failure == "reserved bits set (no extension was agreed)")
    #expect(read(frame(9, [], final: false), step: 2).failure == "a control frame fragmented or over 125 bytes")
    #expect(read(frame(9, [UInt8](repeating: 0, count: 126)), step: 200).failure != nil)
    #expect(read(text("x", continuation: true), step: 3).failure == "a continuation frame outside a message")
    #expect(read(text("a", final: false) + text("b"), step: 10).failure == "a new message inside a fragmented one")
    #expect(read(frame(8, [3]), step: 3).failure == "a close frame of one byte")
    #expect(read(frame(3, []), step: 2).failure == "unknown opcode 3")
    let tooLarge = read(text(String(repeating: "x", count: 200)), step: 300, max: 100)
    #expect(tooLarge.failure == "message larger than 100 bytes" && tooLarge.code == 1009)
    #expect(read(frame(3, []), step: 2).code == 1002)
    let fragmentsTooLarge = read(
      text(String(repeating: "x", count: 60), final: false)
        + text(String(repeating: "y", count: 60), continuation: true), step: 300, max: 100
    )
    #expect(fragmentsTooLarge.failure == "message larger than 100 bytes" && fragmentsTooLarge.code == 1009)
  }

  @Test("A deliver that returns false stops the read after that message; the rest is read next time")
  func pause() {
    let stream = text("one") + text("two") + text("three")
    var reader = ServerFrameReader(maxMessageBytes: 1_000)
    var seen: [ServerFrameReader.Event] = []
    let first = stream.withUnsafeBytes {
      reader.read($0) {
        seen.append($0); return false
      }
    }
    #expect(seen == [.text("one")])
    #expect(first == .init(consumed: 5, failure: nil))
    let rest = Array(stream[first.consumed...])
    let second = rest.withUnsafeBytes {
      reader.read($0) {
        seen.append($0); return true
      }
    }
    #expect(seen == [.text("one"), .text("two"), .text("three")])
    #expect(second.consumed == rest.count)
  }
}

@Suite("The load tool's epoll client against a real server", .serialized)
struct EpollClientServerTests {
  final class Server {
    let process: ChildProcess
    let port: Int

    init() throws {
      let binary = try #require(ChildProcess.builtProduct("reorder"), "build the reorder product first (swift build)")
      process = try ChildProcess(
        executable: binary,
        arguments: ["serve", "--host", "127.0.0.1", "--port", "0", "--data", ":memory:", "--log-level", "warn"])
      let line = try #require(process.waitForListening())
      let digits = line.split(separator: ":").last.map { $0.prefix { $0.isNumber } } ?? ""
      port = try #require(Int(digits))
    }

    deinit { process.terminate() }
  }

  @Test("A run on the epoll client: every client welcomed, every move acknowledged, every drag end delivered")
  func run() throws {
    let server = try Server()
    var configuration = LoadConfiguration()
    configuration.url = "ws://127.0.0.1:\(server.port)"
    configuration.progress = false
    configuration.clients = 24
    configuration.rooms = 2
    configuration.draggers = 4
    configuration.moveRate = 40
    configuration.durationSeconds = 1
    configuration.threads = 2
    configuration.clientIO = .epoll
    let runner = try LoadRunner(
      configuration: configuration, makeContext: LoadRunner.contextFactory(for: configuration))
    let result = try runner.run()
    let counters = result.counters
    #expect(counters.connected == 24)
    #expect(counters.connectFailures == 0 && counters.unexpectedCloses == 0 && counters.errors == 0)
    #expect(counters.movesSent > 0)
    #expect(counters.movesAcknowledged == counters.movesSent)
    #expect(counters.appliedGaps == 0 && counters.appliedDuplicates == 0)
    #expect(counters.dragUpdatesSent > 0)
    #expect(counters.dragEndsDelivered == counters.dragEndsExpected && counters.dragEndsExpected == 4 * 11)
  }

  /// Events of one connection, collected on the context's thread.
  final class Recorder: @unchecked Sendable {
    let events = Locked<[LoadSocketEvent]>([])
    func record(_ event: LoadSocketEvent) { events.withLock { $0.append(event) } }
    var closed: (code: UInt16?, reason: String)? {
      for event in events.snapshot { if case .closed(let code, let reason) = event { return (code, reason) } }
      return nil
    }
    var texts: [String] {
      events.snapshot.compactMap { if case .text(let text) = $0 { text } else { nil } }
    }
  }

  @Test("A refused upgrade, a close by the server, a port nobody listens on, a close by the client: each reported once")
  func closes() throws {
    let server = try Server()
    let context = try EpollSocketContext()
    defer { context.shutdown() }
    let refused = Recorder()
    _ = context.connect(url: "ws://127.0.0.1:\(server.port)/ws/a%zz", subprotocol: nil) { refused.record($0) }
    let unnamed = Recorder()
    _ = context.connect(url: "ws://127.0.0.1:\(server.port)/ws/", subprotocol: nil) { unnamed.record($0) }
    let nobody = Recorder()
    _ = context.connect(url: "ws://127.0.0.1:9/", subprotocol: nil) { nobody.record($0) }
    #expect(waitUntil(timeout: 10) { refused.closed != nil && unnamed.closed != nil && nobody.closed != nil })
    #expect(refused.closed?.code == nil && refused.closed?.reason.hasPrefix("HTTP 403") == true)
    #expect(unnamed.closed?.code == 1008 && unnamed.closed?.reason.hasPrefix("invalid room name") == true)
    #expect(nobody.closed?.reason == "connect: Connection refused")

    let member = Recorder()
    let socket = context.connect(url: "ws://127.0.0.1:\(server.port)/ws/epoll-test", subprotocol: nil) {
      member.record($0)
    }
    socket.send(##"{"type":"hello","room":"epoll-test","client":"c1","name":"E","color":"#123456"}"##)
    #expect(waitUntil(timeout: 10) { member.texts.contains { $0.contains(#""type":"welcome""#) } })
    socket.close(code: 1000, reason: "done")
    #expect(waitUntil(timeout: 10) { member.closed != nil })
    #expect(member.closed?.code == 1000)
    #expect(member.events.snapshot.filter { if case .closed = $0 { true } else { false } }.count == 1)
  }
}
