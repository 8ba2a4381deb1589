import ReorderBasics
import ReorderRooms
import ReorderWebhooks

/// One node's log: the local implementation of the log port (the other is `ClusterAdapter`, over
/// Redis). A `LocalSequencer` orders each append at once; the room applies it and hands back its
/// resolved record (`record(room:entries:)`), which goes to the store's group commit; its
/// `applied` goes out once that is durable. Its snapshots go to the same store, after the records
/// before them. With each write of a room the board list's summary is saved, and once it is
/// durable `board.changed` goes to the webhooks. Service thread only.
///
/// Answers are held and handed over at the end of the batch of actions that made them
/// (`batchEnded()`), in the order the appends were made: every room applies its ops in seq order,
/// and the writes of a batch of answers reach the store together, in seq order. An answer leads to
/// more actions, hence more appends: those are answered in the same loop, after the ones before.
public final class LocalLog: LogPort {
  private var sequencer = LocalSequencer()
  private var answers: [LogAnswer] = []
  /// Whether the held answers are being handed over (the hand-over performs more actions, and so
  /// ends more batches).
  private var answering = false
  /// Where answers go (the driver, which owns this log).
  public weak var receiver: (any PortAnswers)?
  /// Where the records go.
  private let store: any RoomLogStore
  /// The same store as the board list's directory, when it keeps one: each write's summary is
  /// saved there, after the write (the store orders its writes as they are queued).
  private let directory: (any BoardDirectory)?
  /// Hears of every durable write (`board.changed`), when webhooks are on.
  public var webhooks: Webhooks?

  /// A log that orders no room yet, keeping its records in `store` (one with no board list).
  public init(store: any RoomLogStore) {
    self.store = store
    self.directory = nil
  }

  /// A log that orders no room yet, keeping its records in `store` and their summaries in its
  /// board list.
  public init(listing store: any RoomLogStore & BoardDirectory) {
    self.store = store
    self.directory = store
  }

  /// Appends are answered at the end of the batch; a room unfollowed (unloaded or dropped) is gone
  /// at once.
  public func perform(_ action: LogAction) {
    switch action {
    case .append(let append):
      answers.append((append, sequencer.append(append)))
    case .follow(let room, let after):
      sequencer.follow(room: room, after: after)
    case .unfollow(let room):
      sequencer.unfollow(room: room)
      receiver?.logRoomGone(room)
    case .readRange:
      // Nothing is ever ahead of a room here: it applies each answer at once.
      break
    }
  }

  public func record(room: String, entries: [LogEntry]) {
    guard let first = entries.first, let last = entries.last else { return }
    let received = MonotonicClock.now()
    // A board the API replaced or deleted meanwhile has another epoch (none: gone): the answer of
    // a write of its old history concerns nobody any more.
    let epoch = receiver?.logEpoch(room: room) ?? ""
    let webhooks = self.webhooks
    store.append(room: room, entries: entries) { [weak receiver] result in
      // Read on the store's thread: the records' headers are parsed off the service thread.
      let actors = webhooks != nil ? OpActor.distinct(in: entries) : []
      receiver?.post { [weak receiver] in
        guard let receiver, receiver.logEpoch(room: room) == epoch else { return }
        switch result {
        case .success(let seq):
          receiver.logCommitWaited(seconds: MonotonicClock.now() - received)
          receiver.logDurable(room: room, upTo: seq)
          webhooks?.boardChanged(room: room, epoch: epoch, fromSeq: first.seq, toSeq: seq, actors: actors)
        case .failure(let error):
          Log.log(.error, "append failed", [("room", room), ("error", "\(error)")])
          // A full disk rebuilds the room and rejects its ops not stored; another failure drops it.
          // Either way none of its pending ops will be stored, and its API requests end (503).
          receiver.logWriteFailed(room: room, error: error)
        }
      }
    }
    if let directory, let summary = receiver?.logSummary(room: room) {
      directory.saveSummary(
        room: room,
        summary: BoardSummary(epoch: summary.epoch, seq: last.seq, lists: summary.lists, items: summary.items),
        updatedMilliseconds: nil)
    }
  }

  public func snapshot(room: String, snapshot: RoomSnapshot) {
    // The room compacted its board for this snapshot and makes its next ops on that board: if the
    // snapshot is not stored, the store refuses the room's later writes (see `RoomStore`) and the
    // room fails as after a failed append: rebuilt from what is stored when the disk is full, else
    // dropped, so that its clients reconnect to what is stored.
    let seq = snapshot.seq
    store.saveSnapshot(room: room, snapshot: snapshot) { [weak receiver] result in
      guard case .failure(let error) = result else { return }
      Log.log(.error, "snapshot failed", [("room", room), ("seq", "\(seq)"), ("error", "\(error)")])
      receiver?.post { [weak receiver] in receiver?.logWriteFailed(room: room, error: error) }
    }
  }

  public func batchEnded() {
    guard !answering else { return }
    answering = true
    defer { answering = false }
    while !answers.isEmpty, let receiver {
      let batch = answers
      answers.removeAll()
      receiver.logAppended(batch)
    }
  }
}
