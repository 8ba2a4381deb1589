import ReorderAPI
import ReorderRooms

/// A cluster's board list (`ClusterSummaries`: Redis' directory, the summaries the lease holders
/// write, the rosters' counts) as the API reads it.
public final class ClusterBoardList: BoardList {
  let summaries: ClusterSummaries

  /// The list `summaries` keep.
  public init(_ summaries: ClusterSummaries) { self.summaries = summaries }

  public func list(
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
