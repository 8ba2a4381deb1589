import ReorderRooms

/// One node's log: the local implementation of the log port (the other is `ClusterAdapter`, over
/// Redis). A `LocalSequencer` orders each append at once; the room applies it and stores its
/// resolved record through the store's group commit (`.persist`), and its `applied` goes out once
/// that is durable. Service thread only.
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

  /// A log that orders no room yet.
  public init() {}

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
