import ReorderBasics
import Testing

@testable import ReorderRooms

/// A full disk (`RoomStoreError.full`) refuses the ops it did not store and rebuilds the room from
/// what is stored, while its members stay connected (`Room+Rebuild.swift`).
@Suite("A full disk: ops refused, the room rebuilt, its members kept")
struct StorageFullTests {
  static let full = RoomStoreError.full("the disk is full (test)")

  /// A room with list `l` of items a, b, c, durable, joined by connections 1 (client "one") and 2
  /// (client "two"), on a store answering on demand; inboxes emptied.
  static func room() -> (RoomsHarness, ConnectionHandle, ConnectionHandle) {
    let h = RoomsHarness(storage: InMemoryRoomStore(answering: .onDemand), autoDurable: false)
    let one = h.join(1, client: "one")
    h.storage.answerPending()
    let two = h.join(2, client: "two")
    h.seed(one, ids: ["a", "b", "c"])
    h.storage.answerPending()
    h.makeDurable()
    _ = h.take(one)
    _ = h.take(two)
    return (h, one, two)
  }

  static func move(_ id: String, _ item: String, after: String) -> String {
    #"{"type":"op","id":"\#(id)","op":{"kind":"move","item":"\#(item)","list":"l","after":"\#(after)"}}"#
  }

  /// The ops now pending fail with a full disk: the store refuses them and the driver reports it.
  static func failPending(_ h: RoomsHarness, with error: RoomStoreError = full) {
    h.unpersisted = []
    h.perform(h.registry.writeFailed(room: "r", error: error))
  }

  static func rejections(_ frames: [JSONValue]) -> [String: String] {
    var out: [String: String] = [:]
    for frame in frames where frame["type"] == .string("rejected") {
      out[frame["id"]?.stringValue ?? ""] = frame["code"]?.stringValue
    }
    return out
  }

  @Test("The ops a full disk did not store are rejected storage_full to their senders only, and nobody saw them")
  func unstoredOpsAreRejected() throws {
    let (h, one, two) = Self.room()
    h.storage.fail(.append, with: Self.full)
    h.send(one, Self.move("m1", "a", after: "c"))
    h.send(two, Self.move("m2", "b", after: "a"))
    h.storage.answerPending()
    Self.failPending(h)
    let first = h.take(one)
    let second = h.take(two)
    #expect(Self.rejections(first) == ["m1": "storage_full"])
    #expect(Self.rejections(second) == ["m2": "storage_full"])
    #expect(!(first + second).contains { $0["type"] == .string("applied") })
    #expect(h.closed.isEmpty, "nobody is disconnected")
    #expect(h.registry.room("r")?.rebuilding == true)
    #expect(h.registry.statistics.opsRejected["storage_full"] == 2)
  }

  @Test("A client that reconnected and re-sent a pending op hears of its refusal on the new connection too")
  func reconnectedSenderHearsTheRefusal() {
    let (h, one, _) = Self.room()
    h.storage.fail(.append, with: Self.full)
    h.send(one, Self.move("m1", "a", after: "c"))
    h.storage.answerPending()
    let again = h.join(3, client: "one")
    h.send(again, Self.move("m1", "a", after: "c"))
    Self.failPending(h)
    #expect(Self.rejections(h.take(one)) == ["m1": "storage_full"])
    #expect(Self.rejections(h.take(again)) == ["m1": "storage_full"])
  }

  @Test("The rebuilt room has the stored board, keeps its members' streams, and takes ops again once space is freed")
  func rebuiltRoomGoesOn() throws {
    let (h, one, two) = Self.room()
    h.storage.fail(.append, with: Self.full)
    h.send(one, Self.move("m1", "a", after: "c"))
    h.storage.answerPending()
    Self.failPending(h)
    h.storage.answerPending()  // the rebuild's load
    #expect(h.registry.room("r")?.rebuilding == false)
    #expect(h.items("l") == ["a", "b", "c"], "the board is the stored one")
    #expect(h.registry.room("r")?.memberCount == 2)
    #expect(h.frames(one, type: "welcome").isEmpty && h.frames(two, type: "welcome").isEmpty)
    let durable = h.registry.room("r")!.durableSeq
    h.storage.fail(.append, with: nil)
    // The refused op, sent again with the same id, is a new op now.
    h.send(one, Self.move("m1", "a", after: "c"))
    h.storage.answerPending()
    h.makeDurable()
    for c in [one, two] {
      let applied = h.frames(c, type: "applied")
      #expect(applied.map { $0["seq"] } == [.number(Double(durable + 1))])
      #expect(applied.first?["id"] == .string("m1"))
    }
    #expect(h.items("l") == ["b", "c", "a"])
  }

  @Test("While the room rebuilds, ops are refused at once, drags flow, and a join is welcomed from the stored board")
  func whileRebuilding() throws {
    let (h, one, two) = Self.room()
    h.storage.fail(.append, with: Self.full)
    h.send(one, Self.move("m1", "a", after: "c"))
    h.storage.answerPending()
    Self.failPending(h)
    _ = h.take(one)
    // The rebuild's load is not answered yet.
    h.send(two, Self.move("m2", "c", after: "a"))
    #expect(Self.rejections(h.take(two)) == ["m2": "storage_full"])
    h.send(one, #"{"type":"drag","phase":"start","item":"a","x":0.1}"#)
    h.tick()
    #expect(!h.frames(two, type: "drags").isEmpty, "presence goes on")
    let three = h.join(3, client: "three")
    #expect(h.frames(three, type: "welcome").isEmpty, "the welcome waits for the stored board")
    let durable = h.registry.room("r")!.durableSeq
    let snapshots = h.registry.shutdown().compactMap { action -> UInt64? in
      guard case .snapshot(_, let snapshot) = action else { return nil }
      return snapshot.seq
    }
    #expect(snapshots.allSatisfy { $0 <= durable }, "a snapshot of a board ahead of the disk: \(snapshots)")
    // The failures of the writes the store refused after the first one change nothing.
    h.perform(h.registry.writeFailed(room: "r", error: .unavailable("an earlier write failed (test)")))
    #expect(h.closed.isEmpty)
    h.storage.answerPending()
    let welcome = try #require(h.frames(three, type: "welcome").first)
    #expect(RegistryAPITests.boardItems(welcome["board"], list: "l") == ["a", "b", "c"])
    #expect(welcome["seq"] == .number(Double(h.registry.room("r")!.seq)))
    #expect(h.registry.room("r")?.memberCount == 3)
  }

  @Test("Still full after the rebuild: the next op fails the same way")
  func stillFull() throws {
    let (h, one, _) = Self.room()
    h.storage.fail(.append, with: Self.full)
    for round in 1...3 {
      h.send(one, Self.move("m\(round)", "a", after: "c"))
      h.storage.answerPending()
      Self.failPending(h)
      h.storage.answerPending()
      #expect(Self.rejections(h.take(one)) == ["m\(round)": "storage_full"])
      #expect(h.registry.room("r")?.rebuilding == false)
    }
    #expect(h.loads.filter { $0 == "r" }.count == 4, "the first load and one rebuild per failed write")
    #expect(h.closed.isEmpty)
    #expect(h.items("l") == ["a", "b", "c"])
  }

  @Test("Any other write failure still drops the room: 1011 storage failure")
  func otherFailuresDrop() {
    let (h, one, two) = Self.room()
    h.send(one, Self.move("m1", "a", after: "c"))
    Self.failPending(h, with: .unavailable("I/O error (test)"))
    #expect(h.closed[one]?.code == CloseCode.internalError)
    #expect(h.closed[two]?.reason == "storage failure: unavailable")
    #expect(h.registry.room("r") == nil)
  }

  @Test("A rebuild whose load fails drops the room: 1011 storage failure")
  func failedRebuildDrops() {
    let (h, one, _) = Self.room()
    h.storage.fail(.append, with: Self.full)
    h.storage.fail(.load, with: .unavailable("I/O error (test)"))
    h.send(one, Self.move("m1", "a", after: "c"))
    Self.failPending(h)
    h.storage.answerPending()
    #expect(h.closed[one]?.reason == "storage failure: unavailable")
    #expect(h.registry.room("r") == nil)
  }
}
