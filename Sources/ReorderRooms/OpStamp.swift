/// Who made an op and when, as its record keeps them (either may be unknown: records stored
/// before they were kept, the demo boards' ops).
public struct OpStamp: Sendable, Equatable {
  /// Who made it.
  public var actor: OpActor?
  /// When the server took it, in milliseconds since 1970-01-01 UTC.
  public var at: Int64?

  /// A stamp.
  public init(actor: OpActor?, at: Int64?) {
    self.actor = actor
    self.at = at
  }
}

/// One entry of a room's history (`GET /api/v1/boards/{room}/history`): an op as it was resolved,
/// with its stamp.
public struct HistoryEntry: Sendable, Equatable {
  /// Its seq.
  public var seq: UInt64
  /// The resolved op (`applied.op`).
  public var op: JSONValue
  /// Who made it and when.
  public var stamp: OpStamp

  /// An entry.
  public init(seq: UInt64, op: JSONValue, stamp: OpStamp) {
    self.seq = seq
    self.op = op
    self.stamp = stamp
  }
}

/// One page of a room's history, newest first (`HistoryPage.read`).
public enum HistoryPage: Sendable, Equatable {
  /// The entries of seqs `before - 1` down, at most the limit; `next` is the `before` of the page
  /// after it, nil when the kept history ends with this page.
  case entries([HistoryEntry], next: UInt64?)
  /// `before - 1` is older than the kept history, which starts at `earliest`.
  case gone(earliest: UInt64)

  /// The page of the ops before `before` (at most `limit`, newest first) from `kept`: the newest
  /// `limit + 1` entries of the log below `before`, in seq order (one more than the page, so that
  /// the page knows whether the history goes on). The page starts at the newest of them and takes
  /// only entries contiguous with it: a log trimmed at compaction keeps op 1 (it carries the epoch)
  /// apart from the rest, and the history does not jump over that gap. Whether `before - 1` is
  /// older than the kept history is for the caller to tell (`isOnlyFirstOp`).
  public static func read(kept: [HistoryEntry], before: UInt64, limit: Int) -> HistoryPage {
    let window = kept.filter { $0.seq < before }
    guard let top = window.last?.seq else { return .entries([], next: nil) }
    var page: [HistoryEntry] = []
    var expected = top
    for entry in window.reversed() {
      guard entry.seq == expected else { break }
      if page.count == limit { return .entries(page, next: entry.seq + 1) }
      page.append(entry)
      if expected == 1 { break }
      expected -= 1
    }
    return .entries(page, next: nil)
  }

  /// Whether the page holds op 1 alone while the ops asked for were above it: op 1 outlives the
  /// trimmed ops after it, so the ops before `before` may be trimmed rather than never made.
  public func isOnlyFirstOp(before: UInt64) -> Bool {
    guard case .entries(let entries, _) = self, entries.count == 1, entries[0].seq == 1 else { return false }
    return before > 2
  }

  /// `{"room","entries":[{"seq","at","actor","op"}],"next"}`; `at` is RFC 3339 UTC made by
  /// `rfc3339` from milliseconds, `at` and `actor` are null where unknown.
  public func json(room: String, rfc3339: (Int64) -> String) -> JSONValue? {
    guard case .entries(let entries, let next) = self else { return nil }
    let items: [JSONValue] = entries.map { entry in
      .object([
        ("seq", .number(Double(entry.seq))), ("at", entry.stamp.at.map { .string(rfc3339($0)) } ?? .null),
        ("actor", entry.stamp.actor?.json ?? .null), ("op", entry.op),
      ])
    }
    return .object([
      ("room", .string(room)), ("entries", .array(items)), ("next", next.map { .number(Double($0)) } ?? .null),
    ])
  }
}
