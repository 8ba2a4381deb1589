import Foundation
import ReorderBasics
import ReorderLocal
import ReorderRooms
import ReorderStore
import Testing

/// One node's implementations of the log and presence ports (ReorderLocal), against a receiver
/// that records what it is handed, as the driver would be.
@Suite("One node's log and presence ports")
struct LocalPortsTests {
  /// Records the answers; `onAppended` runs inside a hand-over (the driver performs the answers'
  /// actions there, which may append again and end more batches).
  final class Receiver: PortAnswers, @unchecked Sendable {
    var appended: [[UInt64]] = []
    var gone: [String] = []
    var rosters: [(room: String, entries: [[UInt8]])] = []
    var posted: [@Sendable () -> Void] = []
    var onAppended: ([LogAnswer]) -> Void = { _ in }
    var durable: [(room: String, seq: UInt64)] = []
    var failed: [(room: String, error: RoomStoreError)] = []
    var commitWaits = 0
    /// The loaded rooms' epochs (`logEpoch`).
    var epochs: [String: String] = ["a": "e1"]
    /// The loaded rooms' figures (`logSummary`).
    var summaries: [String: BoardSummary] = [:]

    func post(_ work: @escaping @Sendable () -> Void) { posted.append(work) }
    func logAppended(_ answers: [LogAnswer]) {
      appended.append(answers.map(\.append.ticket))
      onAppended(answers)
    }
    func logCommitWaited(seconds: Double) { commitWaits += 1 }
    func logDurable(room: String, upTo seq: UInt64) { durable.append((room, seq)) }
    func logWriteFailed(room: String, error: RoomStoreError) { failed.append((room, error)) }
    func logEpoch(room: String) -> String? { epochs[room] }
    func logSummary(room: String) -> BoardSummary? { summaries[room] }
    func logPosition(room: String) -> (epoch: String, seq: UInt64)? { nil }
    func logActors(room: String, from: UInt64, through: UInt64) -> [OpActor] { [] }
    /// Runs the work posted so far, as the service thread would.
    func runPosted() {
      let work = posted
      posted.removeAll()
      for item in work { item() }
    }
    func logEntries(room: String, entries: [AppendedEntry]) {}
    func logRangeFailed(room: String) {}
    func logHistoryChanged(room: String, epoch: String?) {}
    func logRoomGone(_ room: String) { gone.append(room) }
    func logFollowEpoch(room: String) -> String? { nil }
    func presenceReceived(room: String, node: String, payload: [UInt8]) {}
    func rosterRead(room: String, entries: [[UInt8]]) { rosters.append((room, entries)) }
  }

  /// A log over `store` answering to a fresh receiver, following room `a` from `after`.
  func log(following after: UInt64, store: InMemoryRoomStore = InMemoryRoomStore()) -> (LocalLog, Receiver) {
    let log = LocalLog(store: store)
    let receiver = Receiver()
    log.receiver = receiver
    log.perform(.follow(room: "a", after: after))
    return (log, receiver)
  }

  func append(_ room: String, ticket: UInt64) -> LogAppend {
    LogAppend(room: room, epoch: "e", key: Array("k\(ticket)".utf8), node: "n", payload: [], ticket: ticket)
  }

  @Test("Appends are answered at the end of their batch, in order, with their seqs; nothing before")
  func answersAtTheEndOfTheBatch() throws {
    let (log, receiver) = self.log(following: 4)
    log.perform(.append(append("a", ticket: 1)))
    log.perform(.append(append("a", ticket: 2)))
    #expect(receiver.appended.isEmpty)
    var seqs: [UInt64] = []
    receiver.onAppended = { answers in
      for answer in answers { if case .success(.ordered(let seq)) = answer.result { seqs.append(seq) } }
    }
    log.batchEnded()
    #expect(receiver.appended == [[1, 2]])
    #expect(seqs == [5, 6])
    log.batchEnded()
    #expect(receiver.appended == [[1, 2]], "a batch with no append hands nothing over")
  }

  @Test("Appends made while answers are handed over are answered in the same loop, after them")
  func appendsDuringTheHandOver() throws {
    let (log, receiver) = self.log(following: 0)
    receiver.onAppended = { answers in
      // The driver performs the answers' actions here; they end a batch of their own, which must
      // not hand anything over inside this one.
      if answers.map(\.append.ticket) == [1] {
        log.perform(.append(append("a", ticket: 2)))
        log.batchEnded()
        #expect(receiver.appended == [[1]])
      }
    }
    log.perform(.append(append("a", ticket: 1)))
    log.batchEnded()
    #expect(receiver.appended == [[1], [2]])
  }

  @Test("A room unfollowed is gone at once, and its later appends are refused unavailable")
  func unfollowed() throws {
    let (log, receiver) = self.log(following: 0)
    log.perform(.unfollow(room: "a"))
    #expect(receiver.gone == ["a"])
    var results: [Result<AppendReply, LogError>] = []
    receiver.onAppended = { results.append(contentsOf: $0.map(\.result)) }
    log.perform(.append(append("a", ticket: 1)))
    log.batchEnded()
    #expect(results == [.failure(.unavailable("the room is not open"))])
  }

  func records(_ seqs: ClosedRange<UInt64>) -> [LogEntry] {
    seqs.map { LogEntry(seq: $0, payload: Array("{\"seq\":\($0)}".utf8)) }
  }

  @Test("Records reach the store, and are answered durable on the service thread (posted), up to the last")
  func recordsDurable() throws {
    let store = InMemoryRoomStore(answering: .onDemand)
    let (log, receiver) = self.log(following: 0, store: store)
    log.record(room: "a", entries: records(1...3))
    #expect(store.calls(.append) == 1)
    store.answerPending()
    #expect(receiver.durable.isEmpty, "answers reach the rooms only on the service thread")
    receiver.runPosted()
    #expect(receiver.durable.map(\.seq) == [3])
    #expect(receiver.commitWaits == 1)
    #expect(receiver.failed.isEmpty)
  }

  @Test("A failed write of records is handed to the rooms with the store's error; nothing is durable")
  func recordsFailed() throws {
    let store = InMemoryRoomStore()
    store.fail(.append, with: .full("disk full"))
    let (log, receiver) = self.log(following: 0, store: store)
    log.record(room: "a", entries: records(1...1))
    receiver.runPosted()
    #expect(receiver.durable.isEmpty)
    #expect(receiver.failed.map(\.room) == ["a"])
    #expect(receiver.failed.first?.error == .full("disk full"))
  }

  @Test("The answer to a write of a history replaced (or deleted) meanwhile concerns nobody")
  func recordsOfAnotherHistory() throws {
    let store = InMemoryRoomStore(answering: .onDemand)
    let (log, receiver) = self.log(following: 0, store: store)
    log.record(room: "a", entries: records(1...2))
    receiver.epochs["a"] = "e2"
    log.record(room: "a", entries: records(1...1))
    store.answerPending()
    receiver.runPosted()
    #expect(receiver.durable.count == 1, "only the write of the history loaded now is answered")
    log.record(room: "a", entries: records(2...2))
    store.answerPending()
    receiver.epochs["a"] = nil
    receiver.runPosted()
    #expect(receiver.durable.count == 1)
    #expect(receiver.failed.isEmpty)
    // A room gone when its records are handed over: their answer concerns nobody either.
    store.fail(.append, with: .unavailable("dropped room"))
    log.record(room: "a", entries: records(3...3))
    store.answerPending()
    receiver.runPosted()
    #expect(receiver.durable.count == 1)
    #expect(receiver.failed.isEmpty)
  }

  @Test("With each write the room's summary goes to the store's board list, at the write's last seq")
  func recordsSaveTheSummary() throws {
    let store = try Store(path: ":memory:")
    defer { store.close() }
    let local = StoreRoomStorage(store: store)
    let log = LocalLog(listing: local)
    let receiver = Receiver()
    log.receiver = receiver
    log.perform(.follow(room: "a", after: 0))
    receiver.summaries["a"] = BoardSummary(epoch: "e1", seq: 0, lists: 2, items: 7)
    log.record(room: "a", entries: records(1...3))
    var listed: [BoardListing] = []
    for _ in 0..<500 where listed.first?.summary == nil {
      let done = DispatchSemaphore(value: 0)
      let answer = Locked<[BoardListing]>([])
      local.boards(after: nil, limit: 10) { result in
        answer.withLock { $0 = (try? result.get()) ?? [] }
        done.signal()
      }
      _ = done.wait(timeout: .now() + 5)
      listed = answer.withLock { $0 }
      if listed.first?.summary == nil { usleep(10_000) }
    }
    #expect(listed.map(\.room) == ["a"])
    #expect(listed.first?.summary == BoardSummary(epoch: "e1", seq: 3, lists: 2, items: 7))
  }

  @Test("One node's presence channel has no other follower: a publish and a follow deliver nothing")
  func presenceAlone() throws {
    let channel = LocalPresenceChannel(node: "n")
    let receiver = Receiver()
    channel.receiver = receiver
    channel.perform(.follow(room: "a"))
    channel.perform(.rosterJoin(room: "a", session: "s1", peer: Array("{}".utf8)))
    var message = PresenceMessage()
    message.left = ["s0"]
    channel.perform(.publish(room: "a", message: message))
    channel.perform(.follow(room: "a"))
    #expect(receiver.posted.isEmpty)
    #expect(receiver.rosters.isEmpty)
  }
}
