import Foundation
import ReorderAPI
import ReorderRooms

/// One node's board list: the SQLite store's rooms with their summaries. A board stored before
/// summaries were kept is read once on the reader thread and its summary saved.
public final class StoreBoardList: BoardList {
  let directory: any BoardDirectory
  let boards: RoomBoardFactory

  /// The list of the boards in `directory` (its boards are built by `boards`).
  public init(_ directory: any BoardDirectory, boards: RoomBoardFactory) {
    self.directory = directory
    self.boards = boards
  }

  public func list(
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
