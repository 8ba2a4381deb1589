/// The log of one node's rooms: the local implementation of the `.append` / `.follow` /
/// `.unfollow` actions (the other one is the shared Redis log, `reorder_append_ops`).
///
/// One node is the only writer of its rooms, so an append is ordered at once: it gets the next seq
/// of its room (`AppendReply.ordered`), and the room applies it and stores its resolved record
/// through the store's group commit (`.persist`); its `applied` goes out once that is durable. An
/// op whose seq would pass its `LogAppend.until` is refused `stale`, as by the shared log (the
/// room makes it again after the compaction boundary). Epochs need no check here: every append is
/// answered at once, so none is ever out when a room's history is replaced. Pure: no I/O.
///
/// Invariant: a followed room's head is the seq of its last op ordered here (the room's `seq` once
/// it has applied the answers).
public struct LocalSequencer: Sendable {
  /// The last seq ordered, by followed room.
  var heads: [String: UInt64] = [:]

  /// A sequencer following no room.
  public init() {}

  /// The room is loaded at `seq`: later appends follow from there. Called again when the room is
  /// loaded again (its history replaced, or rebuilt from the store).
  public mutating func follow(room: String, after seq: UInt64) {
    heads[room] = seq
  }

  /// The room is unloaded or dropped: its appends are unavailable until it is followed again.
  public mutating func unfollow(room: String) {
    heads[room] = nil
  }

  /// The answer to `append`, at once.
  public mutating func append(_ append: LogAppend) -> Result<AppendReply, LogError> {
    guard let head = heads[append.room] else { return .failure(.unavailable("the room is not open")) }
    if append.until > 0, head + 1 > append.until { return .failure(.stale(append.until)) }
    heads[append.room] = head + 1
    return .success(.ordered(head + 1))
  }
}
