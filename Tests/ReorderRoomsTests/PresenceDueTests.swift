import Testing

@testable import ReorderRooms

/// Presence goes out on demand: the registry says when a room next needs a flush, and the server
/// asks the transport for a tick then (there is no fast periodic tick).
@Suite("Presence due times")
struct PresenceDueTests {
  let interval = 1.0 / 30

  func room() -> (RoomsHarness, ConnectionHandle, ConnectionHandle) {
    let h = RoomsHarness()
    let a = h.join(1)
    let b = h.join(2)
    h.seed(a, ids: ["p"])
    _ = h.take(a)
    _ = h.take(b)
    return (h, a, b)
  }

  /// Sends a drag from `c` and the leading-edge flush as the server driver does; returns its due.
  func drag(_ h: RoomsHarness, _ c: ConnectionHandle, x: Double) -> Double? {
    h.send(c, #"{"type":"drag","phase":"move","item":"p","x":\#(x)}"#)
    let busy = h.busy
    let (actions, due) = h.registry.flushPresenceEarly(after: c, now: h.now) { busy.contains($0) }
    h.perform(actions)
    return due
  }

  @Test("A room with nothing to send is never due")
  func idleRoomNotDue() {
    let (h, _, _) = room()
    #expect(h.registry.nextTick(now: h.now) == nil)
    #expect(h.registry.nextTick(room: "r", now: h.now) == nil)
  }

  @Test("A drag sent on the leading edge leaves nothing due")
  func leadingEdgeLeavesNothingDue() {
    let (h, a, b) = room()
    #expect(drag(h, a, x: 0.1) == nil)
    #expect(h.frames(b, type: "drags").count == 1)
    #expect(h.registry.nextTick(now: h.now) == nil)
  }

  @Test("A drag the pacing holds back is due when the next flush is allowed, and goes out then")
  func heldBackDragIsDueAtNextToken() throws {
    let (h, a, b) = room()
    _ = drag(h, a, x: 0.1)
    h.now += interval / 4
    let due = try #require(drag(h, a, x: 0.2))
    #expect(abs(due - (h.now - interval / 4 + interval)) < 1e-9)
    #expect(h.registry.nextTick(now: h.now) == due)
    h.now = due
    h.tick(advancing: 0)
    #expect(h.frames(b, type: "drags").count == 2)
    #expect(h.registry.nextTick(now: h.now) == nil)
  }

  @Test("A member held back as busy makes the room due again one slow interval later, until it is reached")
  func busyMemberIsRetried() throws {
    let (h, a, b) = room()
    h.busy = [b]
    let due = try #require(drag(h, a, x: 0.1))
    #expect(abs(due - (h.now + interval)) < 1e-9)
    h.now = due
    h.tick(advancing: 0)
    #expect(h.frames(b, type: "drags").isEmpty)
    #expect(h.registry.nextTick(now: h.now) != nil)
    h.busy = []
    h.now += interval
    h.tick(advancing: 0)
    #expect(h.frames(b, type: "drags").count == 1)
    #expect(h.registry.nextTick(now: h.now) == nil)
  }

  @Test("A drag cancelled by a disconnect makes its room due at once")
  func disconnectCancelIsDue() throws {
    let (h, a, b) = room()
    _ = drag(h, a, x: 0.1)
    h.now += interval * 2
    h.close(a)
    let due = try #require(h.registry.nextTick(room: "r", now: h.now))
    #expect(due <= h.now)
    h.tick(advancing: 0)
    guard case .array(let updates)? = h.frames(b, type: "drags").last?["updates"] else {
      Issue.record("no drags frame after the disconnect")
      return
    }
    #expect(updates.first?["phase"] == .string("cancel"))
  }
}

@Suite("Room unloading on demand")
struct UnloadDueTests {
  @Test("A room left empty is due for unloading after the idle time, and a tick then unloads it")
  func emptyRoomIsDueAfterIdleTime() throws {
    let h = RoomsHarness()
    let a = h.join(1)
    #expect(h.registry.nextTick(now: h.now) == nil)
    h.close(a)
    let due = try #require(h.registry.nextTick(room: "r", now: h.now))
    #expect(abs(due - (h.now + h.registry.limits.roomIdleSeconds)) < 1e-9)
    #expect(h.registry.nextTick(now: h.now) == due)
    h.tick(advancing: due - h.now - 0.5)
    #expect(h.registry.roomCount == 1)
    h.tick(advancing: 0.5)
    #expect(h.registry.roomCount == 0)
    #expect(h.registry.nextTick(now: h.now) == nil)
  }
}
