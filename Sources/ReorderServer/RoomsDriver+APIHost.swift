import Foundation
import ReorderAPI
import ReorderBasics
import ReorderCluster
import ReorderRooms

/// The driver as the API's host (`APIHandlers`), and where the API's board changes reach the rest
/// of the server (webhooks).
extension RoomsDriver: APIHost {
  /// A board was created or replaced (stored). The one place to tell others (webhooks): a
  /// `board.created`, then the `board.changed` of its seeded ops 1…seq, so that the new epoch's
  /// events start at `from_seq` 1 as docs/WEBHOOKS.md has it (in cluster mode the lease holder
  /// reports from the PUT's summary on, which is at that seq).
  func boardCreated(_ name: String, _ board: CreatedBoard) {
    Log.log(.info, board.replaced ? "board replaced by the API" : "board created by the API", [("room", name)])
    webhooks?.boardCreated(room: name, epoch: board.epoch)
    if board.seq > 0 {
      webhooks?.boardChanged(room: name, epoch: board.epoch, fromSeq: 1, toSeq: board.seq, actors: [.api])
    }
  }

  /// A board was deleted (stored). The one place to tell others (webhooks).
  func boardDeleted(_ name: String) {
    webhooks?.boardDeleted(room: name)
  }
}

/// One node's board list: the SQLite store's rooms with their summaries. A board stored before
/// summaries were kept is read once on the reader thread and its summary saved.
final class StoreBoardList: BoardList {
  let directory: any BoardDirectory
  let boards: RoomBoardFactory

  init(_ directory: any BoardDirectory, boards: RoomBoardFactory) {
    self.directory = directory
    self.boards = boards
  }

  func list(
    after: String?, limit: Int, completion: @escaping @Sendable (Result<[ListedBoard], any Error>) -> Void
  ) {
    directory.boards(after: after, limit: limit) { [self] result in
      switch result {
      case .failure(let error): completion(.failure(error))
      case .success(let listings):
        fillSummaries(listings) { listings in
          completion(
            .success(
              listings.map {
                ListedBoard(room: $0.room, summary: $0.summary, updatedMilliseconds: $0.updatedMilliseconds ?? 0)
              }))
        }
      }
    }
  }

  /// Reads the boards that have no summary yet (stored by an older version) and saves theirs.
  /// On the store's reader thread, one board after another.
  private func fillSummaries(_ listings: [BoardListing], _ done: @escaping @Sendable ([BoardListing]) -> Void) {
    guard let index = listings.firstIndex(where: { $0.summary == nil }) else { return done(listings) }
    let name = listings[index].room
    RoomLoad(room: name, boards: boards).run(on: directory) { [self] result in
      var listings = listings
      if case .success(let prepared) = result {
        // Stored before summaries were kept: the time it was first listed, shown and stored alike.
        let now = Int64((Date().timeIntervalSince1970 * 1_000).rounded())
        directory.saveSummary(room: name, summary: prepared.summary, updatedMilliseconds: now)
        listings[index].summary = prepared.summary
        listings[index].updatedMilliseconds = now
      } else {
        listings[index].summary = BoardSummary(epoch: "", seq: 0, lists: 0, items: 0)
      }
      fillSummaries(listings, done)
    }
  }
}

/// A cluster's board list (`ClusterSummaries`: Redis' directory, the summaries the lease holders
/// write, the rosters' counts) as the API reads it.
final class ClusterBoardList: BoardList {
  let summaries: ClusterSummaries

  init(_ summaries: ClusterSummaries) { self.summaries = summaries }

  func list(
    after: String?, limit: Int, completion: @escaping @Sendable (Result<[ListedBoard], any Error>) -> Void
  ) {
    summaries.list(after: after, limit: limit) { result in
      completion(
        result.map { listings in
          listings.map {
            ListedBoard(
              room: $0.room,
              summary: $0.summary.map { BoardSummary(epoch: $0.epoch, seq: $0.seq, lists: $0.lists, items: $0.items) },
              updatedMilliseconds: $0.summary?.updatedMilliseconds ?? 0, online: $0.online,
              unreachable: $0.unreachable)
          }
        }.mapError { $0 as any Error })
    }
  }
}
