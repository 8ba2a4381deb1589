import Testing

@testable import ReorderRooms

@Suite("Room statistics")
struct RoomStatisticsTests {
  @Test("Ops applied, repeated and rejected by code, and messages by type, are counted")
  func opsAndMessages() {
    var limits = RoomLimits()
    limits.maxOpsPerSecond = 2
    let h = RoomsHarness(limits: limits)
    let a = h.join(1, client: "ca")
    h.send(a, #"{"type":"op","id":"ca:1","op":{"kind":"createList","list":"l","title":"L","layout":"list"}}"#)
    h.send(a, #"{"type":"op","id":"ca:1","op":{"kind":"createList","list":"l","title":"L","layout":"list"}}"#)
    h.send(a, #"{"type":"op","id":"ca:2","op":{"kind":"move","item":"nope","list":"l"}}"#)
    h.send(a, #"{"type":"op","id":"ca:3","op":{"kind":"move","item":"nope","list":"l"}}"#)
    h.send(a, #"{"type":"op","id":"ca:4","op":{"kind":"bogus"}}"#)
    h.send(a, #"{"type":"op","id":"ca:5","op":{"kind":"createList","title":"L","layout":"list"}}"#)
    h.send(a, "not json")
    let s = h.registry.statistics
    #expect(s.opsApplied == 1)
    #expect(s.opsRepeated == 1)
    #expect(s.opsRejected == ["unknown_item": 2, "rate_limited": 1, "unknown_kind": 1])
    #expect(s.messagesReceived == ["hello": 1, "op": 5, "invalid": 2])
    #expect(s.roomsLoaded == 1)
    #expect(s.connections == 1)
    #expect(s.members == 1)
    #expect(s.loadsCompleted == 1)
  }

  @Test("Presence frames sent and held back for busy members are counted as the room sees them")
  func presence() {
    let h = RoomsHarness()
    let a = h.join(1)
    let b = h.join(2)
    let slow = h.join(3)
    h.seed(a, ids: ["p"])
    #expect(h.registry.statistics.peerFramesSent == 3, "b's join to a; slow's join to a and b")
    h.busy = [slow]
    h.send(a, #"{"type":"drag","phase":"move","item":"p"}"#)
    h.tick()
    var s = h.registry.statistics
    #expect(s.presenceFramesSent == 1)
    #expect(s.presenceFramesHeld == 1)
    h.busy = []
    h.tick()
    s = h.registry.statistics
    #expect(s.presenceFramesSent == 2)
    #expect(s.presenceFramesHeld == 1)
    _ = b
  }

  @Test("Loading rooms and failed loads are counted; an unloaded room's counts stay in the totals")
  func loadsAndUnloads() {
    var limits = RoomLimits()
    limits.roomIdleSeconds = 1
    let h = RoomsHarness(limits: limits, storage: InMemoryRoomStore(answering: .onDemand))
    let a = h.open(1)
    #expect(h.registry.statistics.roomsLoading == 1)
    h.storage.answerPending()
    h.send(a, #"{"type":"hello","room":"r","client":"c","name":"N","color":"red"}"#)
    h.send(a, #"{"type":"op","id":"c:1","op":{"kind":"createList","title":"T","layout":"list"}}"#)
    h.close(a)
    h.now += 2
    h.tick()
    var s = h.registry.statistics
    #expect(s.roomsLoaded == 0)
    #expect(s.roomsLoading == 0)
    #expect(s.opsApplied == 1)
    h.storage.fail(.load, with: .corrupt("bad"))
    _ = h.open(2, room: "x")
    h.storage.answerPending()
    s = h.registry.statistics
    #expect(s.loadsFailed == 1)
    #expect(s.loadsCompleted == 1)
  }
}
