import Foundation
import ReorderRooms
import ReorderTransport

/// `GET /api/v1/boards?limit=&cursor=`: the stored boards by name, a page at a time, with the
/// summaries their storage keeps (`BoardList`; no room is loaded for it). A board loaded here
/// shows its own figures when they are ahead of its summary (ops being committed, or up to one
/// write interval of a cluster's lease holder). In cluster mode a board whose Redis master cannot
/// be reached is named in `unavailable`.
extension APIHandlers {
  /// Boards per page unless `limit` says (1…1,000).
  static let defaultListLimit = 100

  func boards(_ head: HTTPRequestHead, _ responder: HTTPResponder) {
    guard let boardList else {
      return responder.respond(
        APIRoutes.Problem(503, "storage unavailable", "this storage cannot list boards").response)
    }
    guard let (after, limit) = Self.boardsPage(head, responder) else { return }
    // One more than asked: whether there is a next page.
    boardList.list(after: after, limit: limit + 1) { [weak self] result in
      switch result {
      case .failure(let error):
        responder.respond(APIRoutes.Problem(503, "storage unavailable", "\(error)").response)
      case .success(let listings):
        self?.host?.post { [weak self] in self?.answerBoards(listings, limit: limit, responder) }
      }
    }
  }

  /// The page a list request asks for: the name it starts after (from `cursor`) and `limit`; nil
  /// when either is bad (answered 400 here).
  static func boardsPage(_ head: HTTPRequestHead, _ responder: HTTPResponder) -> (after: String?, limit: Int)? {
    let limitText = head.queryValue("limit") ?? "\(Self.defaultListLimit)"
    guard let limit = Int(limitText), (1...1_000).contains(limit) else {
      responder.respond(APIRoutes.Problem(400, "bad request", "limit takes 1 to 1000").response)
      return nil
    }
    var after: String?
    if let cursor = head.queryValue("cursor"), !cursor.isEmpty {
      guard let name = BoardCursor.decode(cursor) else {
        responder.respond(
          APIRoutes.Problem(400, "bad request", "cursor is not one this server gave (use next as it came)").response)
        return nil
      }
      after = name
    }
    return (after, limit)
  }

  /// A board whose summary is gone (deleted after the names were read) is left out.
  private func answerBoards(_ listings: [ListedBoard], limit: Int, _ responder: HTTPResponder) {
    let page = listings.prefix(limit)
    var boards: [JSONValue] = []
    var unavailable: [String] = []
    for listing in page {
      if listing.unreachable { unavailable.append(listing.room) }
      guard var summary = listing.summary else { continue }
      // Nil for a view: the stored figures hold.
      if let here = registry.summary(room: listing.room), here.epoch == summary.epoch, here.seq > summary.seq {
        summary = here
      }
      boards.append(
        Self.boardEntry(
          room: listing.room, summary, online: listing.online ?? registry.onlineCount(room: listing.room),
          updatedMilliseconds: listing.updatedMilliseconds))
    }
    let next: JSONValue = listings.count > limit ? .string(BoardCursor.encode(page.last!.room)) : .null
    responder.respond(Self.boardsAnswer(boards, next: next, unavailable: unavailable))
  }

  /// One board of the list: `room, seq, epoch, lists, items, online, updated_at`.
  static func boardEntry(room: String, _ summary: BoardSummary, online: Int, updatedMilliseconds: Int64) -> JSONValue {
    let updated = Date(timeIntervalSince1970: Double(updatedMilliseconds) / 1_000)
    return .object([
      ("room", .string(room)), ("seq", .number(Double(summary.seq))), ("epoch", .string(summary.epoch)),
      ("lists", .number(Double(summary.lists))), ("items", .number(Double(summary.items))),
      ("online", .number(Double(online))), ("updated_at", .string(BoardCursor.rfc3339(updated))),
    ])
  }

  /// The list's answer: `{"boards","next"}`, and `unavailable` (names) when some boards of the
  /// page could not be read.
  static func boardsAnswer(_ boards: [JSONValue], next: JSONValue, unavailable: [String] = []) -> HTTPResponse {
    var members: [(key: String, value: JSONValue)] = [("boards", .array(boards)), ("next", next)]
    if !unavailable.isEmpty { members.append(("unavailable", .array(unavailable.map(JSONValue.string)))) }
    return APIRoutes.json(200, .object(members))
  }
}

/// The board list's `cursor`: opaque to callers (base64url of the last name of the page before).
public enum BoardCursor {
  static func encode(_ name: String) -> String {
    Data(("b:" + name).utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
      .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
  }

  static func decode(_ cursor: String) -> String? {
    var text = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    text += String(repeating: "=", count: (4 - text.count % 4) % 4)
    guard let data = Data(base64Encoded: text), let decoded = String(data: data, encoding: .utf8),
      decoded.hasPrefix("b:")
    else { return nil }
    let name = String(decoded.dropFirst(2))
    guard case .success = RoomPath.validate(Array(name.utf8)) else { return nil }
    return name
  }

  /// `2026-12-01T18:04:05.123Z`.
  public static func rfc3339(_ date: Date) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    formatter.timeZone = TimeZone(identifier: "UTC")
    return formatter.string(from: date)
  }
}
