import Dispatch
import ReorderBasics
import ReorderCluster
import ReorderRedis
import ReorderRooms

extension ReorderService {
  /// `--demo --redis`: the demo boards the shared log does not have yet are written through the
  /// API's create path (`reorder_board_put` without replacing, so a board that exists, made by
  /// another node or edited since, stays as it is), before the service thread runs. Nodes starting
  /// together each try; the function lets one of them make each board.
  /// - Throws: `RoomStoreError` when Redis cannot be reached or does not answer in time.
  func createSharedDemoRooms(_ cluster: ClusterAdapter) throws {
    for (room, board) in try registry.buildDemoBoards(now: MonotonicClock.now()) {
      let answer = Answer<Result<BoardPutOutcome, RoomStoreError>>()
      cluster.storage.putBoard(
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
        throw RoomStoreError.unavailable("the demo board \(room) was not written to Redis: no answer in 10 s")
      }
    }
  }
}
