import Dispatch
import ReorderBasics
import ReorderRooms

extension ReorderService {
  /// `--demo`: the demo boards the storage does not have yet are written through the API's create
  /// path (`BoardWrites.putBoard` without replacing, so a board that exists, made by another node
  /// or edited since, stays as it is), before the service thread runs. Nodes of a cluster starting
  /// together each try; Redis lets one of them make each board.
  /// - Throws: `RoomStoreError` when the storage cannot be written or does not answer in time.
  func createDemoRooms(_ boardWrites: any BoardWrites) throws {
    for (room, board) in try registry.buildDemoBoards(now: MonotonicClock.now()) {
      let answer = Answer<Result<BoardPut, RoomStoreError>>()
      boardWrites.putBoard(
        room: room, epoch: board.epoch, replace: false, entries: board.entries, snapshot: board.snapshot,
        summary: board.summary
      ) { answer.set($0) }
      switch answer.wait(timeoutSeconds: 10) {
      case .success(.exists)?:
        continue
      case .success?:
        Log.log(.info, "demo room created", [("room", room), ("seq", "\(board.seq)")])
      case .failure(let error)?:
        throw error
      case nil:
        throw RoomStoreError.unavailable("the demo board \(room) was not stored: no answer in 10 s")
      }
    }
  }
}
