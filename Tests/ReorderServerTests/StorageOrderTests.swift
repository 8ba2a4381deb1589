import Foundation
import ReorderLocal
import ReorderRooms
import Testing

@testable import ReorderServer
@testable import ReorderStore

/// The order of a room's storage calls: what a load sees, and when its writes are taken again.
@Suite("Storage order through the port")
struct StorageOrderTests {
  @Test(
    "A load reads after the writes queued before it: a room unloaded with its final snapshot queued reloads from it")
  func loadReadsAfterQueuedWrites() throws {
    let store = try Store(path: ":memory:")
    defer { store.close() }
    let storage = StoreRoomStorage(store: store)
    let gate = hold(store)
    storage.saveSnapshot(room: "r", snapshot: RoomSnapshot(seq: 5, bytes: [1, 2, 3])) { _ in }
    let answer = Answer<Result<RoomHistory, RoomStoreError>>()
    storage.load(room: "r", remembering: 10) { answer.set($0) }
    // While the writer is held, a load that answers has read without the queued snapshot.
    let early = answer.wait(timeoutSeconds: 0.5)
    gate.signal()
    let history = try #require(try (early ?? answer.wait(timeoutSeconds: 30))?.get())
    #expect(history.snapshot == RoomSnapshot(seq: 5, bytes: [1, 2, 3]))
  }

  @Test("After a failed append the room's writes are refused (unavailable) until reopen, in the order of the calls")
  func reopenOrdersBetweenWrites() throws {
    let store = try Store(path: ":memory:")
    defer { store.close() }
    let storage = StoreRoomStorage(store: store)
    let answers = (0..<3).map { _ in Answer<Result<UInt64, RoomStoreError>>() }
    storage.append(room: "r", entries: [LogEntry(seq: 1, payload: [1])]) { _ in }
    let gate = hold(store)
    storage.append(room: "r", entries: [LogEntry(seq: 1, payload: [9])]) { answers[0].set($0) }
    storage.append(room: "r", entries: [LogEntry(seq: 2, payload: [2])]) { answers[1].set($0) }
    storage.reopen(room: "r")
    storage.append(room: "r", entries: [LogEntry(seq: 2, payload: [2])]) { answers[2].set($0) }
    gate.signal()
    let results = answers.map { $0.wait(timeoutSeconds: 30) }
    #expect(results[0].map { if case .failure(.conflict) = $0 { true } else { false } } == true)
    guard case .failure(.unavailable(let message))? = results[1] else {
      Issue.record("an append queued after the failed one was not refused: \(String(describing: results[1]))")
      return
    }
    #expect(message.contains("an earlier write of room \"r\" failed"))
    #expect(results[2] == .success(2))
  }
}

/// Holds `store`'s writer until the returned gate is opened, so that what is queued meanwhile
/// waits for it.
func hold(_ store: Store) -> DispatchSemaphore {
  let gate = DispatchSemaphore(value: 0)
  let entered = DispatchSemaphore(value: 0)
  _ = store.writer.enqueue(
    .barrier({
      entered.signal()
      gate.wait()
    }))
  entered.wait()
  return gate
}
