import ReorderRooms
import ReorderTransport

/// `GET /api/v1/boards` in cluster mode: the rooms of Redis' directory by name, with the
/// summaries their lease holders write (`ClusterSummaries`) and `online` from their rosters,
/// read on the summaries' thread; the same contract as on one node (docs/API.md, docs/CLUSTER.md).
extension APIHandlers {
  /// Lists a page of the directory; answers from the service thread.
  func sharedBoards(after: String?, limit: Int, _ list: any SharedBoardList, _ responder: HTTPResponder) {
    // One more than asked: whether there is a next page.
    list.list(after: after, limit: limit + 1) { [weak self] result in
      switch result {
      case .failure(let error):
        responder.respond(APIRoutes.Problem(503, "storage unavailable", "\(error)").response)
      case .success(let listings):
        self?.host?.post { [weak self] in self?.answerSharedBoards(listings, limit: limit, responder) }
      }
    }
  }

  /// A room loaded here shows its own figures when they are ahead of its summary (up to one
  /// write interval behind), as a board in memory does on one node. A room whose summary is
  /// gone (deleted after the directory was read) is left out; one whose Redis master cannot be
  /// reached is named in `unavailable` (the page is still the directory's page).
  private func answerSharedBoards(_ listings: [SharedBoardListing], limit: Int, _ responder: HTTPResponder) {
    let page = listings.prefix(limit)
    var boards: [JSONValue] = []
    var unavailable: [String] = []
    for listing in page {
      if listing.unreachable { unavailable.append(listing.room) }
      guard var summary = listing.summary else { continue }
      if let here = registry.summary(room: listing.room), here.epoch == summary.epoch, here.seq > summary.seq {
        summary = here
      }
      boards.append(
        Self.boardEntry(
          room: listing.room, summary, online: listing.online, updatedMilliseconds: listing.updatedMilliseconds))
    }
    let next: JSONValue = listings.count > limit ? .string(BoardCursor.encode(page.last!.room)) : .null
    responder.respond(Self.boardsAnswer(boards, next: next, unavailable: unavailable))
  }
}
