import Testing

@testable import ReorderRooms

/// One node's log: appends ordered at once after the room's seq, `stale` past `until`.
@Suite("The local log's sequencer")
struct LocalSequencerTests {
  func append(_ room: String, until: UInt64 = 0, ticket: UInt64 = 1) -> LogAppend {
    LogAppend(
      room: room, epoch: "e", key: Array("k\(ticket)".utf8), node: "n", payload: [], ticket: ticket, until: until)
  }

  @Test("Appends of a followed room get the seqs after the one it was loaded at, in order, per room")
  func ordersAfterTheLoadedSeq() {
    var sequencer = LocalSequencer()
    sequencer.follow(room: "a", after: 41)
    sequencer.follow(room: "b", after: 0)
    #expect(sequencer.append(append("a")) == .success(.ordered(42)))
    #expect(sequencer.append(append("b")) == .success(.ordered(1)))
    #expect(sequencer.append(append("a", ticket: 2)) == .success(.ordered(43)))
  }

  @Test("An append whose seq would pass its until is refused stale, and takes no seq")
  func staleBeyondUntil() {
    var sequencer = LocalSequencer()
    sequencer.follow(room: "a", after: 9)
    #expect(sequencer.append(append("a", until: 10)) == .success(.ordered(10)))
    #expect(sequencer.append(append("a", until: 10, ticket: 2)) == .failure(.stale(10)))
    #expect(sequencer.append(append("a", until: 20, ticket: 3)) == .success(.ordered(11)))
  }

  @Test("A room not followed (unloaded, never loaded) is unavailable; following it again starts from its seq")
  func unfollowed() {
    var sequencer = LocalSequencer()
    #expect(sequencer.append(append("a")) == .failure(.unavailable("the room is not open")))
    sequencer.follow(room: "a", after: 3)
    #expect(sequencer.append(append("a")) == .success(.ordered(4)))
    sequencer.unfollow(room: "a")
    #expect(sequencer.append(append("a")) == .failure(.unavailable("the room is not open")))
    sequencer.follow(room: "a", after: 7)
    #expect(sequencer.append(append("a")) == .success(.ordered(8)))
  }
}

/// One node runs the log's path: an op is made, ordered by the local log, applied, stored with its
/// resolved op, and sent once durable.
@Suite("One node through the log")
struct OneNodeLogTests {
  /// A room with list `l` (p, q), everything durable, and durability made by hand from here on.
  func durableRoom() -> (RoomsHarness, ConnectionHandle) {
    let h = RoomsHarness(autoDurable: false)
    let a = h.join(1)
    h.makeDurable()
    h.seed(a, ids: ["p", "q"])
    h.makeDurable()
    return (h, a)
  }

  @Test("An op is applied when ordered, stored with its resolved op, and its applied goes out only once durable")
  func appliedOnceDurable() throws {
    let (h, a) = durableRoom()
    _ = h.take(a)
    h.send(a, #"{"type":"op","id":"m","op":{"kind":"move","item":"p","list":"l","after":"q"}}"#)
    #expect(h.items("l") == ["q", "p"], "applied when the log ordered it")
    #expect(h.take(a).isEmpty, "nothing sent before it is durable")
    let stored = try #require(h.unpersisted.last?.entries.last)
    #expect(stored.seq == 4)
    let record = try OpRecord(payload: stored.payload)
    #expect(record.resolved["kind"] == .string("move"))
    #expect(record.resolved["from"] != nil, "the stored record holds the resolved op, not the maker's view")
    #expect(record.madeAt == 3)
    h.makeDurable()
    #expect(h.take(a).map { $0["seq"] } == [.number(4)])
  }

  @Test("Ids one node generates differ after a restart (another start of the node)")
  func idsDifferAcrossStarts() throws {
    let h = RoomsHarness()
    let a = h.join(1)
    h.seed(a, ids: ["p"])
    h.send(a, #"{"type":"op","id":"i1","op":{"kind":"insert","list":"l","fields":{}}}"#)
    let first = try #require(h.take(a).last?["op"]?["item"]?.stringValue)
    h.restart()
    let b = h.join(2)
    h.send(b, #"{"type":"op","id":"i2","op":{"kind":"insert","list":"l","fields":{}}}"#)
    let second = try #require(h.take(b).last?["op"]?["item"]?.stringValue)
    #expect(first.hasPrefix("_i") && second.hasPrefix("_i"))
    #expect(first != second)
    #expect(h.items("l").contains(first) && h.items("l").contains(second))
  }

  @Test("The API's ops on one node are answered once durable, an id sent again with its first result")
  func apiAnsweredOnceDurable() {
    let (h, _) = durableRoom()
    let move = Intent.move(item: "p", list: "l", after: "q", before: nil)
    h.perform(h.registry.applyAPIOps("r", request: 1, ops: [("m", .success(move))], now: h.now))
    #expect(h.items("l") == ["q", "p"])
    #expect(h.apiAnswers[1] == nil, "not answered before the op is durable")
    h.makeDurable()
    guard case .done(let results)? = h.apiAnswers[1] else {
      Issue.record("not answered once durable")
      return
    }
    #expect(results.map(\.seq) == [4])
    h.perform(h.registry.applyAPIOps("r", request: 2, ops: [("m", .success(move))], now: h.now))
    #expect(h.apiAnswers[2] == .done(results))
  }
}
