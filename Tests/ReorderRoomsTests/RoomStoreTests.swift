import Testing

@testable import ReorderRooms

/// A log of `count` records, op 1 carrying `epoch`.
func records(_ count: Int, epoch: String = "e") -> [LogEntry] {
  (1...count).map { seq in
    var record = OpRecord(id: "o\(seq)", client: "c", by: "s", resolved: .object([]), logged: [])
    if seq == 1 { record.epoch = epoch }
    return LogEntry(seq: UInt64(seq), payload: record.encoded())
  }
}

/// Whatever the store answered, once it has answered (`nil` while it has not).
final class Answer<T: Sendable>: @unchecked Sendable {
  var value: Result<T, RoomStoreError>?
  var count = 0
  var set: @Sendable (Result<T, RoomStoreError>) -> Void {
    { result in
      self.value = result
      self.count += 1
    }
  }
}

@Suite("RoomStore port: the in-memory store")
struct RoomStoreTests {
  @Test("Answering at once: every call completes inside the call, and reads see earlier writes")
  func immediate() throws {
    let store = InMemoryRoomStore()
    let appended = Answer<UInt64>()
    store.append(room: "r", entries: Array(records(3)), completion: appended.set)
    #expect(appended.value == .success(3))
    let read = Answer<[LogEntry]>()
    store.entries(room: "r", after: 1, limit: 10, completion: read.set)
    #expect(try read.value?.get().map(\.seq) == [2, 3])
    let names = Answer<[String]>()
    store.roomNames(completion: names.set)
    #expect(names.value == .success(["r"]))
  }

  @Test("Answering on demand: nothing completes until answerPending, then everything in call order")
  func onDemand() {
    let store = InMemoryRoomStore(answering: .onDemand)
    nonisolated(unsafe) var seen: [String] = []
    store.append(room: "r", entries: records(2)) { _ in seen.append("append") }
    store.load(room: "r", remembering: 10) { _ in seen.append("load") }
    store.saveSnapshot(room: "r", snapshot: RoomSnapshot(seq: 2, bytes: [9])) { _ in seen.append("snapshot") }
    #expect(seen.isEmpty)
    #expect(store.pendingAnswers == 3)
    store.answerPending()
    #expect(seen == ["append", "load", "snapshot"])
    #expect(store.pendingAnswers == 0)
  }

  @Test("A load gathers the latest snapshot, the remembered ops before it, every op after it and op 1")
  func loadGathersHistory() throws {
    let store = InMemoryRoomStore()
    store.append(room: "r", entries: records(30, epoch: "abc"))
    store.saveSnapshot(room: "r", seq: 20, bytes: [1, 2])
    let loaded = Answer<RoomHistory>()
    store.load(room: "r", remembering: 5, completion: loaded.set)
    let history = try #require(try loaded.value?.get())
    #expect(history.snapshot == RoomSnapshot(seq: 20, bytes: [1, 2]))
    #expect(history.remembered.map(\.seq) == [16, 17, 18, 19, 20])
    #expect(history.after.map(\.seq) == Array(21...30))
    #expect(history.first?.seq == 1)
    let unknown = Answer<RoomHistory>()
    store.load(room: "other", remembering: 5, completion: unknown.set)
    #expect(unknown.value == .success(.empty))
  }

  @Test("A load without a snapshot returns every op after 0, in pages, whatever the log's length")
  func loadWithoutSnapshotPages() throws {
    let store = InMemoryRoomStore()
    store.append(room: "r", entries: records(2_500))
    let loaded = Answer<RoomHistory>()
    store.load(room: "r", remembering: 10_000, completion: loaded.set)
    let history = try #require(try loaded.value?.get())
    #expect(history.snapshot == nil)
    #expect(history.remembered.isEmpty)
    #expect(history.after.map(\.seq) == (1...2_500).map { UInt64($0) })
  }

  @Test("An append that repeats a stored seq with other bytes fails with conflict and stores none of its ops")
  func conflictingAppend() throws {
    let store = InMemoryRoomStore()
    store.append(room: "r", entries: records(2))
    let other = LogEntry(seq: 2, payload: [7])
    let answer = Answer<UInt64>()
    store.append(room: "r", entries: [LogEntry(seq: 3, payload: [3]), other], completion: answer.set)
    #expect(answer.value?.failureKind == "conflict")
    let read = Answer<[LogEntry]>()
    store.entries(room: "r", after: 0, limit: 10, completion: read.set)
    #expect(try read.value?.get().map(\.seq) == [1, 2])
    let same = Answer<UInt64>()
    store.append(room: "r", entries: [records(2)[1]], completion: same.set)
    #expect(same.value == .success(2), "identical bytes are an idempotent retry")
  }

  @Test("Injected failures answer with the typed error, and clearing them lets the call succeed")
  func injectedFailures() {
    let store = InMemoryRoomStore()
    store.fail(.load, with: .unavailable("no disk"))
    let failed = Answer<RoomHistory>()
    store.load(room: "r", remembering: 1, completion: failed.set)
    #expect(failed.value == .failure(.unavailable("no disk")))
    #expect(RoomStoreError.unavailable("no disk").description == "unavailable: no disk")
    store.fail(.load, with: nil)
    let ok = Answer<RoomHistory>()
    store.load(room: "r", remembering: 1, completion: ok.set)
    #expect(ok.value == .success(.empty))
    #expect(store.calls(.load) == 2)
  }

  @Test("Preparing a history rebuilds the room: seq, epoch and op ids; a gap or a bad record is corrupt")
  func prepare() throws {
    let h = RoomsHarness()
    let a = h.join(1, client: "ca")
    h.seed(a, ids: ["p", "q"])
    let epoch = h.registry.room("r")!.epoch
    let load = RoomLoad(room: "r", remembering: 100, boards: h.boards, limits: h.limits)
    let loaded = Answer<PreparedRoom>()
    load.run(on: h.storage, completion: loaded.set)
    let room = try #require(try loaded.value?.get()).room
    #expect(room.seq == 3)
    #expect(room.epoch == epoch)
    #expect(room.opIDs[OpRecord.key(client: "ca", id: "seed-q")] == 3)
    var gap = RoomHistory.empty
    gap.after = [records(3)[2]]
    #expect(throws: RoomStoreError.self) { try load.prepare(gap) }
    var bad = RoomHistory.empty
    bad.after = [LogEntry(seq: 1, payload: [0])]
    do {
      _ = try load.prepare(bad)
      Issue.record("a bad record was loaded")
    } catch {
      #expect(error.kind == "corrupt")
    }
  }
}

extension Result where Failure == RoomStoreError {
  var failureKind: String? {
    if case .failure(let error) = self { return error.kind }
    return nil
  }
}
