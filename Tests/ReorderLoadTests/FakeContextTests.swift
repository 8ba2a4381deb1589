import ReorderBasics
import Testing

@testable import ReorderLoad

@Suite("The in-memory server keeps the socket contract")
struct FakeContextTests {
  @Test("After shutdown no event reaches onEvent: a close the server sends later is dropped, as is posted work")
  func noEventAfterShutdown() {
    let server = FakeServer(mode: .rooms)
    defer { server.stop() }
    let context = server.makeContext()
    let events = Locked(0)
    let socket = context.connect(url: "ws://127.0.0.1:9/r", subprotocol: nil) { _ in events.withLock { $0 += 1 } }
    server.queue.sync {}
    context.post {}
    context.shutdown()
    let before = events.withLock { $0 }
    #expect(before == 1)
    socket.close(code: 1000, reason: "")
    context.post { events.withLock { $0 += 100 } }
    server.queue.sync {}
    context.shutdown()
    #expect(events.withLock { $0 } == before)
  }
}
