import Foundation
import ReorderBasics
import ReorderCluster
import ReorderLocal
import ReorderRedis
import ReorderRooms
import Testing

/// What each log does with a snapshot it could not store (`LogPort.snapshot`): one node's store
/// takes none of the room's later writes, so the rooms hear of it; the shared log holds every op,
/// so a cluster's room and its members stay.
@Suite("Snapshots not stored, on one node and in a cluster")
struct SnapshotFailureTests {
  let snapshot = RoomSnapshot(seq: 4, bytes: [1, 2, 3])

  @Test("One node: a snapshot the store refused reaches the rooms as a failed write")
  func localSnapshotFails() throws {
    let store = InMemoryRoomStore()
    store.fail(.snapshot, with: .unavailable("disk gone"))
    let log = LocalLog(store: store)
    let receiver = LocalPortsTests.Receiver()
    log.receiver = receiver
    log.snapshot(room: "a", snapshot: snapshot)
    receiver.runPosted()
    #expect(receiver.failed.map(\.room) == ["a"])
    #expect(receiver.failed.first?.error == .unavailable("disk gone"))
  }

  @Test("One node: a snapshot stored is answered to nobody")
  func localSnapshotStored() throws {
    let store = InMemoryRoomStore()
    let log = LocalLog(store: store)
    let receiver = LocalPortsTests.Receiver()
    log.receiver = receiver
    log.snapshot(room: "a", snapshot: snapshot)
    receiver.runPosted()
    #expect(receiver.failed.isEmpty)
    #expect(store.snapshot(room: "a")?.seq == 4)
  }

  /// Found by the cluster soak (docs/RELIABILITY.md): Redis killed while a node wrote a room's
  /// snapshot closed every member of the room on that node (1011 `storage failure: unavailable`).
  @Test("Cluster: a snapshot that fails (Redis unreachable) reaches no room; the log goes on")
  func clusterSnapshotFails() throws {
    // Nothing listens on port 1: every call fails `unavailable` at once.
    let adapter = ClusterAdapter(
      target: .single(RedisURL(host: "127.0.0.1", port: 1)),
      node: RoomNode(node: "n1", storedBy: RedisRoomStorage.self), retainedOps: 100)
    let receiver = LocalPortsTests.Receiver()
    adapter.receiver = receiver
    adapter.snapshot(room: "a", snapshot: snapshot)
    // Reads run on the storage's queue after the snapshot: once this one is answered, the
    // snapshot's failure has been handled.
    let read = DispatchSemaphore(value: 0)
    let answer = Locked<Result<[LogEntry], RoomStoreError>?>(nil)
    adapter.storage.entries(room: "a", after: 0, limit: 1) { result in
      answer.withLock { $0 = result }
      read.signal()
    }
    #expect(read.wait(timeout: .now() + 30) == .success)
    guard case .failure(.unavailable) = answer.withLock({ $0 }) else {
      Issue.record("Redis was reachable: the snapshot did not fail")
      return
    }
    #expect(receiver.posted.isEmpty)
    #expect(receiver.failed.isEmpty)
  }
}
