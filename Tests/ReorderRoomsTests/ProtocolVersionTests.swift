import Testing

@testable import ReorderRooms

/// `hello.v` and `welcome.v` (docs/PROTOCOL.md, "Versions and compatibility"): a hello without
/// `v` or with `v: 1` is welcomed with `v: 1`; any other `v` gets `error unsupported_version` and
/// the close 4400, whatever the rest of the hello holds.
@Suite("Protocol version")
struct ProtocolVersionTests {
  let base = ##""type":"hello","room":"r","client":"c","name":"N","color":"#fff""##

  @Test("A hello without v, with v 1 or with v null is welcomed with v 1")
  func versionOneIsWelcomed() {
    let h = RoomsHarness()
    for (i, extra) in ["", #","v":1"#, #","v":1.0"#, #","v":null"#].enumerated() {
      let c = h.open(UInt64(i + 1))
      h.send(c, "{" + base + extra + "}")
      let frames = h.take(c)
      #expect(frames.first?["type"] == .string("welcome"), "\(extra)")
      #expect(frames.first?["v"] == .number(1), "\(extra)")
      #expect(h.closed[c] == nil, "\(extra)")
    }
  }

  @Test("A catch-up welcome carries v 1 too")
  func catchUpWelcomeHasVersion() {
    let h = RoomsHarness()
    let a = h.join(1)
    h.seed(a, ids: ["p"])
    let b = h.join(2, since: 1)
    let welcome = h.take(b).first
    #expect(welcome?["ops"] != nil)
    #expect(welcome?["v"] == .number(1))
  }

  @Test(
    "A hello in another version, or with a v that is not an integer, gets unsupported_version and the close 4400",
    arguments: [#""v":2"#, #""v":0"#, #""v":1.5"#, #""v":"1""#, #""v":true"#, #""v":[1]"#, #""v":{}"#])
  func otherVersionsAreRefused(_ member: String) {
    let h = RoomsHarness()
    let c = h.open(1)
    h.send(c, "{" + base + "," + member + "}")
    let frames = h.take(c)
    #expect(frames.count == 1)
    #expect(frames.first?["type"] == .string("error"))
    #expect(frames.first?["code"] == .string("unsupported_version"))
    #expect(
      frames.first?["message"] == .string("hello.v must be 1, the protocol version this server speaks (or be left out)")
    )
    #expect(h.closed[c]?.code == 4400)
    #expect(h.closed[c]?.reason == "unsupported protocol version")
    #expect(h.registry.room("r")?.members.isEmpty ?? true, "not joined")
  }

  @Test("The version is checked before the hello's other fields")
  func versionBeforeOtherFields() {
    let h = RoomsHarness()
    let c = h.open(1)
    h.send(c, #"{"type":"hello","v":2,"room":7,"who":"someone"}"#)
    #expect(h.take(c).first?["code"] == .string("unsupported_version"))
    #expect(h.closed[c]?.code == 4400)
  }

  @Test("A second hello with another v on a joined connection is already_joined, and nothing closes")
  func secondHelloStaysAlreadyJoined() {
    let h = RoomsHarness()
    let a = h.join(1)
    _ = h.take(a)
    h.send(a, "{" + base + #","v":2}"#)
    #expect(h.take(a).last?["code"] == .string("already_joined"))
    #expect(h.closed[a] == nil)
  }
}
