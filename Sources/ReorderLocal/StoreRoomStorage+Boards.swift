import ReorderBasics
import ReorderRooms
import ReorderStore

/// The HTTP API's storage over the SQLite store: whole-board writes (`BoardWrites`) go to the
/// writer thread in the order of the appends before them; the list (`BoardDirectory`) reads on
/// the reader queue.
extension StoreRoomStorage: BoardWrites {
  public func putBoard(
    room: String, epoch: String, replace: Bool, entries: [LogEntry], snapshot: RoomSnapshot, summary: BoardSummary,
    completion: @escaping @Sendable (Result<BoardPut, RoomStoreError>) -> Void
  ) {
    let ops = entries.map { StoredOp(seq: $0.seq, payload: $0.payload) }
    let stored = StoredSnapshot(seq: snapshot.seq, bytes: snapshot.bytes, board: snapshot.board)
    let write =
      replace
      ? BoardWrite.replace(room: room, ops: ops, snapshot: stored, summary: Self.stored(summary))
      : BoardWrite.create(room: room, ops: ops, snapshot: stored, summary: Self.stored(summary))
    store.write(write) { result in
      completion(
        result.map { $0.existed ? (replace ? .replaced : .exists) : .created }.mapError(StoreRoomStorage.error))
    }
  }

  public func deleteBoard(room: String, completion: @escaping @Sendable (Result<Bool, RoomStoreError>) -> Void) {
    store.write(.delete(room: room)) { result in completion(result.map(\.existed).mapError(StoreRoomStorage.error)) }
  }
}

extension StoreRoomStorage: BoardDirectory {
  public func saveSummary(room: String, summary: BoardSummary, updatedMilliseconds: Int64?) {
    var stored = Self.stored(summary)
    stored.updatedMilliseconds = updatedMilliseconds
    store.write(.summary(room: room, stored)) { result in
      if case .failure(let error) = result {
        Log.log(.warn, "board summary not saved", [("room", room), ("error", "\(error)")])
      }
    }
  }

  public func boards(
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
