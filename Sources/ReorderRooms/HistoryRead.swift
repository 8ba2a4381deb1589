/// A member's `history` request, as the driver runs it off the rooms' thread: the page (taken from
/// the room's catch-up window, or read from storage when older), then the board before its oldest entry
/// (`RoomLoad.boardAt`), then one `history` frame for the member.
public struct HistoryRead: Sendable {
  /// The room.
  public let room: String
  /// Who asked: the frame goes to it alone.
  public let connection: ConnectionHandle
  /// What it asked for.
  public let request: HistoryRequest
  /// The page as the room has it (`RoomRegistry.loggedHistory`); nil: read from storage (a page
  /// older than the room's window; in cluster mode rebuilt from the log).
  let page: HistoryPage?
  /// How the base board is rebuilt.
  let load: RoomLoad

  /// Reads the page (unless the room gave it) and its base on `store`, then hands the frame to
  /// `completion`, on the thread the store answers on. `rfc3339` writes the entries' times.
  public func run(
    on store: any RoomStore, rfc3339: @escaping @Sendable (Int64) -> String,
    completion: @escaping @Sendable ([UInt8]) -> Void
  ) {
    let withPage: @Sendable (HistoryPage) -> Void = { [load] page in
      guard case .entries(let entries, _) = page, let oldest = entries.last?.seq else {
        return completion(page.frame(base: nil, rfc3339: rfc3339))
      }
      load.boardAt(seq: oldest - 1, on: store) { base in
        guard case .success(.board(let seq, _, let board)) = base else {
          return completion(page.frame(base: nil, rfc3339: rfc3339))
        }
        completion(page.frame(base: (seq, board), rfc3339: rfc3339))
      }
    }
    if let page { return withPage(page) }
    // A storage failure answers an empty page: the member may ask again.
    let read: @Sendable (Result<HistoryPage, RoomStoreError>) -> Void = {
      withPage((try? $0.get()) ?? .entries([], next: nil))
    }
    if !load.resolvedOps, let before = request.before {
      // Older than the replica's window, in a log whose records hold the maker's view: rebuilt.
      load.historyPage(before: before, limit: request.limit, on: store, completion: read)
    } else {
      HistoryPage.read(room: room, before: request.before, limit: request.limit, on: store, completion: read)
    }
  }
}

extension HistoryPage {
  /// A page of `room`'s stored log: the ops before `before` (the newest without it), at most
  /// `limit`, newest first (`read(kept:before:limit:)` on the newest `limit + 1` entries). Op 1
  /// outlives the ops trimmed after it: a page that finds op 1 alone where later ops are kept
  /// asked for trimmed ops (`gone`, with the first op kept after op 1).
  public static func read(
    room: String, before: UInt64?, limit: Int, on store: any RoomStore,
    completion: @escaping @Sendable (Result<HistoryPage, RoomStoreError>) -> Void
  ) {
    let upper = before ?? UInt64(Int64.max)
    store.latestEntries(room: room, before: upper, limit: limit + 1) { result in
      switch result {
      case .failure(let error): completion(.failure(error))
      case .success(let entries):
        let page = read(kept: entries.compactMap(HistoryEntry.init(stored:)), before: upper, limit: limit)
        guard page.isOnlyFirstOp(before: upper) else { return completion(.success(page)) }
        store.entries(room: room, after: 1, limit: 1) { later in
          if case .success(let later) = later, let earliest = later.first?.seq {
            completion(.success(.gone(earliest: earliest)))
          } else {
            completion(.success(page))
          }
        }
      }
    }
  }

  /// The `history` frame: `{"type":"history","entries":[{"seq","at","actor","op"}],"next","base"}`
  /// (`base`: `{"seq","board"}` or null), with `"earliest"` when the page is gone. Over the
  /// websocket an actor is its `name` (and `via`): the token's `sub` is for the HTTP API only.
  func frame(base: (seq: UInt64, board: JSONValue)?, rfc3339: (Int64) -> String) -> [UInt8] {
    var members: [(key: String, value: JSONValue)] = [("type", .string("history"))]
    switch self {
    case .gone(let earliest):
      members += [("entries", .array([])), ("next", .null), ("base", .null), ("earliest", .number(Double(earliest)))]
    case .entries(let entries, let next):
      let items: [JSONValue] = entries.map { entry in
        var actor: JSONValue = .null
        if let who = entry.stamp.actor {
          var fields: [(key: String, value: JSONValue)] = [("name", who.name.map(JSONValue.string) ?? .null)]
          if let via = who.via { fields.append(("via", .string(via))) }
          actor = .object(fields)
        }
        return .object([
          ("seq", .number(Double(entry.seq))), ("at", entry.stamp.at.map { .string(rfc3339($0)) } ?? .null),
          ("actor", actor), ("op", entry.op),
        ])
      }
      let baseJSON: JSONValue =
        base.map { .object([("seq", .number(Double($0.seq))), ("board", $0.board)]) } ?? .null
      members += [
        ("entries", .array(items)), ("next", next.map { .number(Double($0)) } ?? .null), ("base", baseJSON),
      ]
    }
    return JSONValue.object(members).encoded()
  }
}

extension HistoryEntry {
  /// The entry of a stored op (nil when its record cannot be read).
  public init?(stored entry: LogEntry) {
    guard let record = try? OpRecord(payload: entry.payload) else { return nil }
    self.init(seq: entry.seq, op: record.resolved, stamp: OpStamp(actor: record.actor, at: record.at))
  }
}

extension RoomRegistry {
  /// The read of a member's `history` request, with the page of the room's window when it holds
  /// it (else read from storage).
  func historyRead(room name: String, connection: ConnectionHandle, request: HistoryRequest) -> HistoryRead {
    let page: HistoryPage?
    switch loggedHistory(room: name, before: request.before, limit: request.limit) {
    case .page(.gone)?: page = nil
    case .page(let found)?: page = found
    case .noBoard?, nil: page = .entries([], next: nil)
    }
    return HistoryRead(room: name, connection: connection, request: request, page: page, load: historyLoad(room: name))
  }
}
