import Dispatch
import EmbeddedTransport
import ReorderTransport
import Testing

/// The in-process transport keeps the rules of the real one that the server relies on
/// (`EmbeddedTransport`'s contract), checked against a handler that records what it hears.
@Suite("EmbeddedTransport")
struct EmbeddedTransportTests {
  /// Echoes text, closes with 4000 on "close", refuses `/no`, answers `/h` from another thread.
  final class Recorder: WebSocketServerHandler {
    weak var transport: EmbeddedTransport?
    var heard: [String] = []
    var closed: [ConnectionID] = []
    var ticks = 0

    func admit(_ request: UpgradeRequest) -> UpgradeDecision {
      request.path == "/no" ? .refuse(status: 403, reason: "not here") : .accept(context: nil)
    }
    func connectionOpened(_ connection: ConnectionID, context: (any Sendable)?) { heard.append("open") }
    func connectionReceived(_ connection: ConnectionID, message: [UInt8], isBinary: Bool) {
      let text = String(decoding: message, as: UTF8.self)
      heard.append(text)
      if text == "close" {
        transport?.close(connection, code: 4000, reason: "asked")
        heard.append(closed.contains(connection) ? "told inside the call" : "not told yet")
      } else {
        transport?.send(message, to: connection, priority: .data)
      }
    }
    func connectionClosed(_ connection: ConnectionID) { closed.append(connection) }
    func transportTick() { ticks += 1 }
    func route(_ head: HTTPRequestHead) -> HTTPRouting { head.path == "/h" ? .handle(maxBodyBytes: 4) : .pass }
    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
      DispatchQueue.global().async { responder.respond(.text(200, "ok")) }
    }
  }

  func make(maxMessageBytes: Int = 16) -> (EmbeddedTransport, Recorder) {
    var configuration = TransportConfiguration()
    configuration.maxMessageBytes = maxMessageBytes
    let recorder = Recorder()
    let transport = EmbeddedTransport(configuration: configuration, handler: recorder)
    recorder.transport = transport
    return (transport, recorder)
  }

  @Test("sends are recorded in order; a close is the last event, heard by the handler on the next run only")
  func sendsAndCloses() throws {
    let (transport, recorder) = make()
    guard case .opened(let id) = transport.connect(UpgradeRequest(path: "/a")) else {
      Issue.record("refused")
      return
    }
    #expect(transport.deliver("hi", to: id))
    #expect(transport.deliver("close", to: id))
    #expect(transport.events(of: id) == [.text(Array("hi".utf8)), .closed(code: 4000, reason: "asked")])
    #expect(recorder.heard == ["open", "hi", "close", "not told yet"])
    #expect(!transport.deliver("late", to: id), "input after a close is ignored")
    #expect(!transport.send([1], to: id, priority: .data))
    transport.runPending()
    #expect(recorder.closed == [id])
    #expect(transport.statistics.disconnects == [4000: 1])
    #expect(transport.connectionCount == 0)
  }

  @Test("a message over maxMessageBytes closes 1009 unheard; a refused upgrade is its status and reason")
  func limitsAndRefusals() throws {
    let (transport, recorder) = make(maxMessageBytes: 4)
    #expect(transport.connect(UpgradeRequest(path: "/no")) == .refused(status: 403, reason: "not here"))
    guard case .opened(let id) = transport.connect(UpgradeRequest(path: "/a")) else { return }
    #expect(!transport.deliver("12345", to: id))
    #expect(transport.nextEvent(of: id) == .closed(code: 1009, reason: "message too large: 5 bytes (limit 4)"))
    #expect(recorder.heard == ["open"])
    #expect(transport.statistics.refused == 1)
  }

  @Test("HTTP: 413 over the route's limit, the handler's answer from another thread, 404 and 405 passed on")
  func http() throws {
    let (transport, _) = make()
    #expect(
      transport.request(HTTPRequest(head: HTTPRequestHead(method: "POST", path: "/h"), body: [1, 2, 3, 4, 5]))?.status
        == 413)
    #expect(transport.request(HTTPRequest(head: HTTPRequestHead(method: "POST", path: "/h"), body: [1]))?.status == 200)
    #expect(transport.request(HTTPRequest(head: HTTPRequestHead(method: "GET", path: "/x")))?.status == 404)
    #expect(transport.request(HTTPRequest(head: HTTPRequestHead(method: "PUT", path: "/x")))?.status == 405)
  }

  @Test("a requested tick fires once due, or at once through fireTick; posted work runs before a client's event")
  func ticksAndPosts() throws {
    let (transport, recorder) = make()
    transport.requestTick(afterSeconds: 0.05)
    #expect(recorder.ticks == 0)
    #expect(transport.drive(timeoutSeconds: 5) { recorder.ticks == 1 })
    transport.requestTick(afterSeconds: 60)
    transport.fireTick()
    #expect(recorder.ticks == 2)
    #expect(transport.tickDueIn == nil)
    guard case .opened(let id) = transport.connect(UpgradeRequest(path: "/a")) else { return }
    nonisolated(unsafe) let heard = recorder
    DispatchQueue.global().sync { transport.post { heard.heard.append("posted") } }
    transport.deliver("after", to: id)
    #expect(recorder.heard == ["open", "posted", "after"])
  }
}
