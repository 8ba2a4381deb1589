import Testing

@testable import ReorderRooms

@Suite("Custom presence states and broadcasts")
struct PresenceStateTests {
  func updates(_ h: RoomsHarness, _ c: ConnectionHandle) -> [[JSONValue]] {
    h.frames(c, type: "presence").compactMap { frame in
      guard case .array(let updates)? = frame["updates"] else { return nil }
      return updates
    }
  }

  @Test("States are coalesced per session (latest wins), reach the others at the flush, never the sender")
  func latestWins() {
    let h = RoomsHarness()
    let a = h.join(1)
    let b = h.join(2)
    _ = h.take(a)
    _ = h.take(b)
    h.send(a, #"{"type":"presence","state":{"list":"l1"}}"#)
    h.send(a, #"{"type":"presence","state":{"list":"l2"}}"#)
    #expect(updates(h, b).isEmpty)
    h.tick()
    let frames = updates(h, b)
    #expect(frames.count == 1)
    #expect(frames.first?.count == 1)
    #expect(frames.first?.first?["state"]?["list"] == .string("l2"))
    #expect(frames.first?.first?["session"] != nil)
    #expect(updates(h, a).isEmpty)
    _ = h.take(b)
    h.tick()
    #expect(updates(h, b).isEmpty)
  }

  @Test("A joiner's welcome carries the others' states; a leaver's state goes as null")
  func welcomeAndLeave() {
    let h = RoomsHarness()
    let a = h.join(1)
    h.send(a, #"{"type":"presence","state":{"list":"l1"}}"#)
    h.tick()
    let b = h.join(2)
    let welcome = h.frames(b, type: "welcome").first
    guard case .array(let states)? = welcome?["presence"] else {
      Issue.record("no presence in the welcome")
      return
    }
    #expect(states.count == 1)
    #expect(states.first?["state"]?["list"] == .string("l1"))
    let session = states.first?["session"]
    _ = h.take(b)
    h.close(a)
    h.tick()
    #expect(updates(h, b).first?.first?["session"] == session)
    #expect(updates(h, b).first?.first?["state"] == .null)
    let c = h.join(3)
    #expect(h.frames(c, type: "welcome").first?["presence"] == .array([]))
  }

  @Test("An oversize state is too_large, not an object is wrong_type, absent is missing_field; the connection lives on")
  func badStates() {
    let h = RoomsHarness()
    let a = h.join(1)
    let b = h.join(2)
    _ = h.take(a)
    let big = String(repeating: "x", count: WireLimits.maxPresenceStateBytes)
    for (frame, code) in [
      (#"{"type":"presence","state":{"k":"\#(big)"}}"#, "too_large"),
      (#"{"type":"presence","state":[1]}"#, "wrong_type"), (#"{"type":"presence","state":"s"}"#, "wrong_type"),
      (#"{"type":"presence"}"#, "missing_field"),
      (#"{"type":"broadcast","event":{"k":"\#(big)\#(big)\#(big)\#(big)"}}"#, "too_large"),
      (#"{"type":"broadcast","event":3}"#, "wrong_type"),
    ] {
      h.send(a, frame)
      #expect(h.take(a).first?["code"] == .string(code), "\(frame.prefix(40))")
    }
    h.tick()
    #expect(updates(h, b).isEmpty)
    #expect(h.frames(b, type: "broadcast").isEmpty)
    h.send(a, #"{"type":"presence","state":{"ok":true}}"#)
    h.tick()
    #expect(updates(h, b).first?.first?["state"]?["ok"] == .bool(true))
    #expect(h.closed[a] == nil)
  }

  @Test("A state of exactly the limit is relayed")
  func stateAtLimit() {
    let h = RoomsHarness()
    let a = h.join(1)
    let b = h.join(2)
    let filler = String(repeating: "x", count: WireLimits.maxPresenceStateBytes - #"{"k":""}"#.utf8.count)
    h.send(a, #"{"type":"presence","state":{"k":"\#(filler)"}}"#)
    h.tick()
    #expect(h.frames(a, type: "error").isEmpty)
    #expect(updates(h, b).count == 1)
  }

  @Test("A broadcast reaches every other member at once with the sender's session, not the sender")
  func broadcastRelayed() {
    let h = RoomsHarness()
    let a = h.join(1)
    let b = h.join(2)
    let c = h.join(3)
    let session = h.frames(a, type: "welcome").first?["session"]
    for x in [a, b, c] { _ = h.take(x) }
    h.send(a, #"{"type":"broadcast","event":{"emoji":"🎉","n":[1,2]}}"#)
    for x in [b, c] {
      let frame = h.frames(x, type: "broadcast").first
      #expect(frame?["session"] == session)
      #expect(frame?["event"]?["emoji"] == .string("🎉"))
    }
    #expect(h.take(a).isEmpty)
  }

  @Test("Broadcasts over the rate get rate_limited (bursts of twice the rate), and pass again later")
  func broadcastFlood() {
    var limits = RoomLimits()
    limits.maxBroadcastsPerSecond = 5
    let h = RoomsHarness(limits: limits)
    let a = h.join(1)
    let b = h.join(2)
    _ = h.take(a)
    _ = h.take(b)
    for n in 0..<15 { h.send(a, #"{"type":"broadcast","event":{"n":\#(n)}}"#) }
    #expect(h.frames(b, type: "broadcast").count == 10)
    let errors = h.take(a).filter { $0["type"] == .string("error") }
    #expect(errors.count == 5)
    #expect(errors.allSatisfy { $0["code"] == .string("rate_limited") })
    #expect(h.closed[a] == nil)
    _ = h.take(b)
    h.tick(advancing: 1)
    h.send(a, #"{"type":"broadcast","event":{"n":99}}"#)
    #expect(h.frames(b, type: "broadcast").count == 1)
  }

  @Test("A token with broadcast: false is refused with forbidden and stays open; presence and viewers still work")
  func broadcastClaim() {
    let h = RoomsHarness()
    h.registry.accessVerifier = FakeVerifier()
    let a = h.open(1)
    h.send(
      a, #"{"type":"hello","room":"r","client":"a","name":"A","color":"red","token":"viewer:a:r:600:nobroadcast"}"#)
    let b = h.open(2)
    h.send(b, #"{"type":"hello","room":"r","client":"b","name":"B","color":"red","token":"viewer:b:r:600"}"#)
    _ = h.take(a)
    _ = h.take(b)
    h.send(a, #"{"type":"broadcast","event":{"n":1}}"#)
    #expect(h.take(a).first?["code"] == .string("forbidden"))
    #expect(h.closed[a] == nil)
    #expect(h.frames(b, type: "broadcast").isEmpty)
    h.send(a, #"{"type":"presence","state":{"list":"l"}}"#)
    h.send(b, #"{"type":"broadcast","event":{"n":2}}"#)
    h.tick()
    #expect(updates(h, b).count == 1)
    #expect(h.frames(a, type: "broadcast").count == 1)
  }

  @Test("presence and broadcast before hello are not_joined")
  func beforeHello() {
    let h = RoomsHarness()
    let a = h.open(1)
    h.send(a, #"{"type":"presence","state":{}}"#)
    #expect(h.take(a).first?["code"] == .string("not_joined"))
    h.send(a, #"{"type":"broadcast","event":{}}"#)
    #expect(h.take(a).first?["code"] == .string("not_joined"))
  }
}
