import ReorderRooms
import ReorderStore

/// The rooms read their state from the SQLite store through this adapter.
final class StoreRoomStorage: RoomStorage, @unchecked Sendable {
  let store: Store

  init(store: Store) { self.store = store }

  func loadSnapshot(room: String) throws -> (seq: UInt64, bytes: [UInt8])? {
    try store.loadSnapshot(room: room)
  }

  func entries(room: String, after seq: UInt64, limit: Int) throws -> [LogEntry] {
    try store.ops(room: room, after: seq, limit: limit).map { LogEntry(seq: $0.seq, payload: $0.payload) }
  }

  func roomNames() throws -> [String] { try store.roomNames() }
}
