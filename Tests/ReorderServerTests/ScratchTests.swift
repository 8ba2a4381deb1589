import ReorderRooms
import ReorderTransport
import Testing

@Test func scratchServerSeed() throws {
  TransportLog.configure(level: .debug, format: .text)
  let server = try TestServer()
  let context = try WebSocketClientContext()
  defer { context.shutdown() }
  let a = try RoomClient.join(port: server.port, client: "a", context: context)
  let b = try RoomClient.join(port: server.port, client: "b", context: context)
  _ = b
  a.op("seed:0", Ops.createList("l"))
  var previous: String?
  for i in 0..<12 {
    a.op("seed:\(i + 1)", Ops.insert("i\(i)", list: "l", after: previous))
    previous = "i\(i)"
  }
  for i in 0...12 {
    let f = try a.next(type: "applied", timeout: 3)
    print("GOT", i, f.jsonText.prefix(120))
  }
}
