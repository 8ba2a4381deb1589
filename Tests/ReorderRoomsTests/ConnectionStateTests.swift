import Testing

@testable import ReorderRooms

/// The connection state is checked from `type` before the other fields; hello's empty epoch; the
/// wording of decoding errors.
@Suite("Connection state and decoding errors")
struct ConnectionStateTests {
  func reply(_ h: RoomsHarness, _ c: ConnectionHandle, _ text: String) -> JSONValue {
    h.send(c, text)
    return h.take(c).last ?? .null
  }

  @Test("A second hello is already_joined even when malformed")
  func secondHelloAlreadyJoined() {
    let h = RoomsHarness()
    let a = h.join(1)
    _ = h.take(a)
    for text in [#"{"type":"hello"}"#, ##"{"type":"hello","room":"r","client":"c","name":"N","color":"#fff"}"##] {
      let error = reply(h, a, text)
      #expect(error["type"] == .string("error"))
      #expect(error["code"] == .string("already_joined"))
    }
  }

  @Test("A malformed op or drag before hello is not_joined")
  func malformedBeforeHelloNotJoined() {
    let h = RoomsHarness()
    let a = h.open(1)
    for text in [
      #"{"type":"op"}"#, #"{"type":"op","id":"x:1","op":{"kind":"nope"}}"#, #"{"type":"drag","phase":"fly"}"#,
    ] {
      let error = reply(h, a, text)
      #expect(error["type"] == .string("error"), "\(text)")
      #expect(error["code"] == .string("not_joined"), "\(text)")
    }
  }

  @Test("hello with the legacy empty epoch is accepted")
  func emptyEpochAccepted() {
    let h = RoomsHarness()
    let a = h.open(1)
    let welcome = reply(h, a, ##"{"type":"hello","room":"r","client":"c","name":"N","color":"#fff","epoch":""}"##)
    #expect(welcome["type"] == .string("welcome"))
  }

  @Test("hello with since > 0 and an empty, other or no epoch gets the full board; with the room's epoch, the ops")
  func epochChecks() {
    let h = RoomsHarness()
    let a = h.join(1)
    h.seed(a, ids: ["p"])
    let b = h.open(2)
    let base = ##"{"type":"hello","room":"r","client":"c","name":"N","color":"#fff","since":1"##
    #expect(reply(h, b, base + #","epoch":""}"#)["board"] != nil)
    let c = h.open(3)
    #expect(reply(h, c, base + #","epoch":"other"}"#)["board"] != nil)
    let d = h.open(4)
    #expect(reply(h, d, base + "}")["board"] != nil)
    let epoch = h.registry.room("r")!.epoch
    let e = h.open(5)
    let caughtUp = reply(h, e, base + #","epoch":"\#(epoch)"}"#)
    #expect(caughtUp["board"] == nil)
    #expect(caughtUp["ops"] != nil)
    let f = h.open(6)
    let fromZero = reply(h, f, ##"{"type":"hello","room":"r","client":"c","name":"N","color":"#fff","since":0}"##)
    #expect(fromZero["ops"] != nil)
  }

  @Test("bad_json says at which byte the frame went wrong")
  func badJSONNamesTheByte() {
    let h = RoomsHarness()
    let a = h.join(1)
    _ = h.take(a)
    let error = reply(h, a, #"{"type":"op",}"#)
    #expect(error["code"] == .string("bad_json"))
    #expect(error["message"] == .string("the frame is not valid JSON: expected a member name at byte 13"))
  }

  @Test("An over-long field name in insert.fields names 'fields'; in set it names 'field'")
  func fieldNameErrorsNameTheField() {
    let h = RoomsHarness()
    let a = h.join(1)
    h.seed(a, ids: ["p"])
    _ = h.take(a)
    let long = String(repeating: "n", count: 65)
    let insert = reply(h, a, #"{"type":"op","id":"i","op":{"kind":"insert","list":"l","fields":{"\#(long)":1}}}"#)
    #expect(insert["code"] == .string("invalid_value"))
    #expect(insert["message"]?.stringValue?.hasPrefix("field 'fields' ") == true)
    let set = reply(h, a, #"{"type":"op","id":"s","op":{"kind":"set","item":"p","field":"\#(long)","value":1}}"#)
    #expect(set["code"] == .string("invalid_value"))
    #expect(set["message"]?.stringValue?.hasPrefix("field 'field' ") == true)
  }
}
