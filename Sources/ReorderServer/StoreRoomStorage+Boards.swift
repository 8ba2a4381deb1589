import ReorderBasics
import ReorderRooms
import ReorderStore

/// The HTTP API's storage (`BoardDirectory`) over the SQLite store: whole-board writes go to the
/// writer thread in the order of the appends before them; the list reads on the reader queue.
extension StoreRoomStorage: BoardDirectory {
  func replaceBoard(
    room: String, entries: [LogEntry], snapshot: RoomSnapshot?, summary: BoardSummary,
    completion: @escaping @Sendable (Result<UInt64, RoomStoreError>) -> Void
  ) {
    let write = BoardWrite.replace(
      room: room, ops: entries.map { StoredOp(seq: $0.seq, payload: $0.payload) },
      snapshot: snapshot.map { StoredSnapshot(seq: $0.seq, bytes: $0.bytes, board: $0.board) },
      summary: Self.stored(summary))
    store.write(write) { result in completion(result.map(\.seq).mapError(StoreRoomStorage.error)) }
  }

  func deleteBoard(room: String, completion: @escaping @Sendable (Result<Bool, RoomStoreError>) -> Void) {
    store.write(.delete(room: room)) { result in completion(result.map(\.existed).mapError(StoreRoomStorage.error)) }
  }

  func saveSummary(room: String, summary: BoardSummary, updatedMilliseconds: Int64?) {
    var stored = Self.stored(summary)
    stored.updatedMilliseconds = updatedMilliseconds
    store.write(.summary(room: room, stored)) { result in
      if case .failure(let error) = result {
        Log.log(.warn, "board summary not saved", [("room", room), ("error", "\(error)")])
      }
    }
  }

  func boards(
    after: String?, limit: Int, completion: @escaping @Sendable (Result<[BoardListing], RoomStoreError>) -> Void
  ) {
    reads.async { [store] in
      do throws(StoreError) {
        let rooms = try store.rooms(after: after, limit: limit)
        completion(
          .success(
            rooms.map { room in
              BoardListing(
                room: room.name,
                summary: room.summary.map {
                  BoardSummary(epoch: $0.epoch, seq: $0.seq, lists: $0.lists, items: $0.items)
                }, updatedMilliseconds: room.updatedMilliseconds)
            }))
      } catch {
        completion(.failure(StoreRoomStorage.error(error)))
      }
    }
  }

  private static func stored(_ summary: BoardSummary) -> RoomSummary {
    RoomSummary(epoch: summary.epoch, seq: summary.seq, lists: summary.lists, items: summary.items)
  }
}
