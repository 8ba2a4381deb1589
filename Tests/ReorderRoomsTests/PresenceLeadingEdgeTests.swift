import Testing

@testable import ReorderRooms

@Suite("Presence leading edge")
struct PresenceLeadingEdgeTests {
  let interval = 1.0 / 30

  func dragFrames(_ h: RoomsHarness, _ c: ConnectionHandle) -> [JSONValue] {
    h.frames(c, type: "drags")
  }

  /// The `x` of a frame's first update.
  func x(_ frame: JSONValue) -> JSONValue? {
    guard case .array(let updates)? = frame["updates"] else { return nil }
    return updates.first?["x"]
  }

  /// Sends a drag from `c`, then the leading-edge flush as the server driver does.
  func drag(_ h: RoomsHarness, _ c: ConnectionHandle, x: Double) {
    h.send(c, #"{"type":"drag","phase":"move","item":"p","x":\#(x)}"#)
    let busy = h.busy
    h.perform(h.registry.flushPresenceEarly(after: c, now: h.now) { busy.contains($0) }.actions)
  }

  func room() -> (RoomsHarness, ConnectionHandle, ConnectionHandle) {
    let h = RoomsHarness()
    let a = h.join(1)
    let b = h.join(2)
    h.seed(a, ids: ["p", "q"])
    _ = h.take(a)
    _ = h.take(b)
    return (h, a, b)
  }

  @Test("In a room with no recent presence frame, the first drag goes out at once")
  func idleRoomRelaysAtOnce() {
    let (h, a, b) = room()
    drag(h, a, x: 0.1)
    #expect(dragFrames(h, b).count == 1)
    #expect(dragFrames(h, b).first.flatMap(x) == .number(0.1))
    #expect(dragFrames(h, a).isEmpty)
  }

  @Test("Within one tick interval of a frame, later drags wait for the tick and go out as one latest-wins frame")
  func busyRoomStillBatches() {
    let (h, a, b) = room()
    drag(h, a, x: 0.1)
    h.now += interval / 4
    drag(h, a, x: 0.2)
    drag(h, a, x: 0.3)
    #expect(dragFrames(h, b).count == 1)
    // A tick sooner than one interval after the leading flush sends nothing either.
    h.tick(advancing: 0)
    #expect(dragFrames(h, b).count == 1)
    h.now += interval
    h.tick()
    let frames = dragFrames(h, b)
    #expect(frames.count == 2)
    #expect(frames.last.flatMap(x) == .number(0.3))
  }

  @Test("After a quiet interval the next drag is immediate again")
  func quietAgainIsImmediate() {
    let (h, a, b) = room()
    drag(h, a, x: 0.1)
    h.now += interval * 2
    h.tick()
    drag(h, a, x: 0.2)
    #expect(dragFrames(h, b).count == 2)
  }

  @Test("A busy connection gets nothing on the leading edge and catches up at a later tick")
  func busyConnectionCatchesUp() {
    let (h, a, b) = room()
    h.busy = [b]
    drag(h, a, x: 0.1)
    #expect(dragFrames(h, b).isEmpty)
    h.busy = []
    h.now += interval
    h.tick()
    #expect(dragFrames(h, b).count == 1)
    #expect(dragFrames(h, b).first.flatMap(x) == .number(0.1))
  }
}
