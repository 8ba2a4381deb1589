import Foundation
import ReorderRooms
import ReorderTransport
import TestSupport
import Testing

/// What a bad frame must produce.
enum Outcome: Sendable, CustomStringConvertible {
  case error(String)
  case rejected(String)
  case close(UInt16)

  var description: String {
    switch self {
    case .error(let c): return "error \(c)"
    case .rejected(let c): return "rejected \(c)"
    case .close(let c): return "close \(c)"
    }
  }
}

/// One bad-input case: frames sent on a fresh connection (after hello when `joined`).
struct BadCase: Sendable, CustomTestStringConvertible {
  var name: String
  var joined = true
  var frames: [String]
  var expect: Outcome

  init(_ name: String, joined: Bool = true, _ frames: [String], _ expect: Outcome) {
    self.name = name
    self.joined = joined
    self.frames = frames
    self.expect = expect
  }

  var testDescription: String { name }

  /// Decided by the transport (its message size limit, 1009), not by the server built on it: run
  /// over real sockets; every other case runs in-process.
  var isTransportLimit: Bool {
    if case .close(1009) = expect { return true }
    return false
  }
}

let hello = #"{"type":"hello","room":"t","client":"bad","name":"Bad","color":"red"}"#

func op(_ body: String, id: String = "x:1") -> String { #"{"type":"op","id":"\#(id)","op":\#(body)}"# }

let badCases: [BadCase] = [
  BadCase("not JSON", ["hello there"], .error("bad_json")),
  BadCase("empty frame", [""], .error("bad_json")),
  BadCase("truncated JSON", [#"{"type":"op","id":"#], .error("bad_json")),
  BadCase("array instead of object", ["[1,2,3]"], .error("bad_message")),
  BadCase("number instead of object", ["42"], .error("bad_message")),
  BadCase("null", ["null"], .error("bad_message")),
  BadCase("object without type", [#"{"room":"t"}"#], .error("bad_message")),
  BadCase("type is a number", [#"{"type":7}"#], .error("bad_message")),
  BadCase("unknown type", [#"{"type":"teleport"}"#], .error("unknown_type")),
  BadCase("op before hello", joined: false, [op(#"{"kind":"delete","item":"p"}"#)], .error("not_joined")),
  BadCase("drag before hello", joined: false, [#"{"type":"drag","phase":"start","item":"p"}"#], .error("not_joined")),
  BadCase("hello twice", [hello], .error("already_joined")),
  BadCase(
    "hello in protocol version 2", joined: false,
    [#"{"type":"hello","v":2,"room":"t","client":"b","name":"B","color":"red"}"#], .close(4400)),
  BadCase(
    "hello for another room", joined: false,
    [#"{"type":"hello","room":"other","client":"b","name":"B","color":"red"}"#],
    .error("room_mismatch")),
  BadCase(
    "hello without client", joined: false, [#"{"type":"hello","room":"t","name":"B","color":"red"}"#],
    .error("missing_field")),
  BadCase(
    "hello name is a number", joined: false, [#"{"type":"hello","room":"t","client":"b","name":5,"color":"red"}"#],
    .error("wrong_type")),
  BadCase(
    "hello name too long", joined: false,
    [#"{"type":"hello","room":"t","client":"b","name":"\#(String(repeating: "n", count: 200))","color":"red"}"#],
    .error("invalid_value")),
  BadCase(
    "hello since negative", joined: false,
    [#"{"type":"hello","room":"t","client":"b","name":"B","color":"red","since":-1}"#], .error("invalid_value")),
  BadCase("op without id", [#"{"type":"op","op":{"kind":"delete","item":"p"}}"#], .error("missing_field")),
  BadCase("op id is a number", [#"{"type":"op","id":3,"op":{"kind":"delete","item":"p"}}"#], .error("wrong_type")),
  BadCase("op without op", [#"{"type":"op","id":"x:1"}"#], .rejected("missing_field")),
  BadCase("unknown op kind", [op(#"{"kind":"explode","item":"p"}"#)], .rejected("unknown_kind")),
  BadCase("move of an unknown item", [op(#"{"kind":"move","item":"ghost","list":"l"}"#)], .rejected("unknown_item")),
  BadCase(
    "move into an unknown list", [op(#"{"kind":"move","item":"p","list":"nowhere"}"#)], .rejected("unknown_list")),
  BadCase(
    "unassign of an unknown assignment", [op(#"{"kind":"unassign","assignment":"zz"}"#)],
    .rejected("unknown_assignment")),
  BadCase(
    "insert of an existing id", [op(#"{"kind":"insert","list":"l","item":"p","fields":{}}"#)],
    .rejected("duplicate_item")),
  BadCase(
    "move after an item of another list", [op(#"{"kind":"move","item":"p","list":"l","after":"m1"}"#)],
    .rejected("invalid_anchor")),
  BadCase(
    "move next to itself", [op(#"{"kind":"move","item":"p","list":"l","after":"p"}"#)], .rejected("invalid_anchor")),
  BadCase("item id is a number", [op(#"{"kind":"delete","item":12}"#)], .rejected("wrong_type")),
  BadCase("fields is an array", [op(#"{"kind":"insert","list":"l","fields":[1]}"#)], .rejected("wrong_type")),
  BadCase(
    "field value is an object", [op(#"{"kind":"insert","list":"l","fields":{"title":{"a":1}}}"#)],
    .rejected("wrong_type")),
  BadCase(
    "layout not list or grid", [op(#"{"kind":"createList","title":"T","layout":"table"}"#)], .rejected("invalid_value")),
  BadCase("restore of a live item", [op(#"{"kind":"restore","item":"p"}"#)], .rejected("invalid_field")),
  BadCase(
    "server-reserved item id", [op(#"{"kind":"insert","list":"l","item":"_i9","fields":{}}"#)],
    .rejected("invalid_value")),
  BadCase(
    "long string field",
    [op(#"{"kind":"set","item":"p","field":"title","value":"\#(String(repeating: "x", count: 5_000))"}"#)],
    .rejected("invalid_value")),
  BadCase(
    "long id", [op(#"{"kind":"delete","item":"\#(String(repeating: "i", count: 300))"}"#)], .rejected("invalid_value")),
  BadCase("huge number (overflow)", [#"{"type":"drag","phase":"move","item":"p","index":1e999}"#], .error("bad_json")),
  BadCase(
    "huge number (in range)", [#"{"type":"drag","phase":"move","item":"p","index":1e300}"#], .error("invalid_value")),
  BadCase(
    "huge integer literal", [#"{"type":"drag","phase":"move","item":"p","x":\#(String(repeating: "9", count: 600))}"#],
    .error("bad_json")),
  BadCase(
    "deep nesting", [String(repeating: "[", count: 30_000) + String(repeating: "]", count: 30_000)], .error("bad_json")),
  BadCase(
    "deep nesting inside an op",
    [op(String(repeating: #"{"a":"#, count: 40) + "1" + String(repeating: "}", count: 40))], .error("bad_json")),
  BadCase("drag phase unknown", [#"{"type":"drag","phase":"hover","item":"p"}"#], .error("invalid_value")),
  BadCase("drag x is a string", [#"{"type":"drag","phase":"move","item":"p","x":"left"}"#], .error("wrong_type")),
  BadCase(
    "drag t over 256 bytes of JSON",
    [#"{"type":"drag","phase":"move","item":"p","t":{"pad":"\#(String(repeating: "x", count: 260))"}}"#],
    .error("invalid_value")),
  BadCase("drag of an unknown item", [#"{"type":"drag","phase":"start","item":"ghost"}"#], .error("unknown_item")),
  BadCase("duplicate member", [#"{"type":"op","type":"drag"}"#], .error("bad_json")),
  BadCase(
    "1 MiB frame", [#"{"type":"op","id":"big","pad":""# + String(repeating: "x", count: 1 << 20) + #""}"#], .close(1009)
  ),
]

@Suite("Bad input", .serialized)
struct BadInputTests {
  /// A room with list `l` = [p, q, r] and list `m` = [m1], and a good client in it.
  func prepare(_ server: some RoomServer) throws -> (good: RoomClient, board: JSONValue) {
    let good = try server.join(client: "good")
    good.op("s0", Ops.createList("l"))
    good.op("s1", Ops.createList("m"))
    good.op("s2", Ops.insert("p", list: "l"))
    good.op("s3", Ops.insert("q", list: "l"))
    good.op("s4", Ops.insert("r", list: "l"))
    good.op("s5", Ops.insert("m1", list: "m"))
    _ = try good.applied(id: "s5")
    let probe = try server.join(client: "probe")
    probe.close()
    return (good, probe.welcome["board"] ?? .null)
  }

  /// The good client is still served, and a fresh join sees the same board.
  func checkUnharmed(_ server: some RoomServer, _ good: RoomClient, board: JSONValue, probe: String) throws {
    good.op(probe, Ops.move("p", list: "l"))
    #expect(try good.applied(id: probe)["op"]?["kind"] == .string("move"))
    good.op(probe + "-back", Ops.move("p", list: "l", before: "q"))
    _ = try good.applied(id: probe + "-back")
    let after = try server.join(client: "after-" + probe)
    after.close()
    #expect(after.welcome["board"] == board, "the board changed")
  }

  @Test(
    "Each bad frame gets its documented error, rejection or close (in-process)",
    arguments: badCases.filter { !$0.isTransportLimit })
  func badFrame(_ bad: BadCase) throws {
    try check(bad, on: try InProcessServer())
  }

  @Test(
    "A frame over the transport's size limit is closed 1009 over sockets",
    arguments: badCases.filter(\.isTransportLimit))
  func badFrameOverSockets(_ bad: BadCase) throws {
    try check(bad, on: try TestServer())
  }

  /// Sends `bad`'s frames on a fresh connection to `server` and checks its outcome, that the good
  /// client and the board are unharmed and, unless closed, that the bad connection stays usable.
  func check(_ bad: BadCase, on server: some RoomServer) throws {
    let (good, board) = try prepare(server)
    let client = try server.connect(room: "t")
    if bad.joined { try client.hello(room: "t", client: "bad") }
    for frame in bad.frames { client.send(frame) }
    switch bad.expect {
    case .error(let code):
      let frame = try client.next(type: "error")
      #expect(frame["code"] == .string(code), "\(frame.jsonText)")
      #expect((frame["message"]?.stringValue?.count ?? 0) > 5)
    case .rejected(let code):
      let frame = try client.next(type: "rejected")
      #expect(frame["code"] == .string(code), "\(frame.jsonText)")
      #expect(frame["id"] == .string("x:1"))
    case .close(let code):
      #expect(client.waitForClose()?.code == code)
    }
    try checkUnharmed(server, good, board: board, probe: "probe")
    if bad.expect.isOpen {
      // The bad connection stays usable.
      if !bad.joined { try client.hello(room: "t", client: "bad-later") }
      client.send(#"{"type":"drag","phase":"start","item":"q"}"#)
      _ = try good.next { $0["type"] == .string("drags") }
    }
    client.close()
  }

  @Test("A flood of 10,000 ops per second is rate limited and then closed; others keep being served")
  func flood() throws {
    let server = try TestServer()
    let (good, board) = try prepare(server)
    // A plain socket client that writes its whole flood before it reads anything (as a script
    // with a simple send loop does): the close frame must still reach it, not be destroyed by a
    // reset from a server that closed the socket with the flood's tail unread.
    let flooder = try RawSocket(port: server.port)
    #expect(try flooder.websocketHandshake(path: "/ws/t").contains("101"))
    try flooder.writeFrame(
      opcode: 1, payload: Array(##"{"type":"hello","room":"t","client":"flooder","name":"F","color":"#e11d48"}"##.utf8))
    var written = 0
    for i in 0..<10_000 {
      let op = #"{"type":"op","id":"f:\#(i)","op":{"kind":"delete","item":"ghost"}}"#
      guard (try? flooder.writeFrame(opcode: 1, payload: Array(op.utf8))) != nil else { break }
      written += 1
    }
    #expect(written == 10_000, "the server reset the connection while the client was still writing")
    var rejected = 0
    var close: (code: UInt16, reason: String)?
    while close == nil, let frame = try flooder.readFrame() {
      if frame.opcode == 8, frame.payload.count >= 2 {
        close = (
          UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1]),
          String(decoding: frame.payload.dropFirst(2), as: UTF8.self)
        )
      } else if String(decoding: frame.payload, as: UTF8.self).contains(#""type":"rejected""#) {
        rejected += 1
      }
    }
    #expect(close?.code == 1008, "no close frame arrived")
    #expect(close?.reason == "too many bad or rate-limited messages")
    #expect(rejected > 0 && rejected < 10_000)
    try checkUnharmed(server, good, board: board, probe: "after-flood")
  }

  @Test("An abrupt disconnect in the middle of a frame harms nobody")
  func disconnectMidFrame() throws {
    let server = try TestServer()
    let (good, board) = try prepare(server)
    let raw = try RawSocket(port: server.port)
    #expect(try raw.websocketHandshake(path: "/ws/t").contains("101"))
    // A masked text frame announcing 1,000 bytes, of which only 10 are sent.
    var bytes: [UInt8] = [0x81, 0xFE, 0x03, 0xE8, 1, 2, 3, 4]
    bytes += Array(#"{"type":"h"#.utf8).enumerated().map { $0.element ^ UInt8($0.offset % 4 + 1) }
    _ = bytes.withUnsafeBytes { Glibc.write(raw.fd, $0.baseAddress, $0.count) }
    raw.close()
    try checkUnharmed(server, good, board: board, probe: "after-abrupt")
  }
}

extension Outcome {
  var isOpen: Bool {
    if case .close = self { return false }
    return true
  }
}
