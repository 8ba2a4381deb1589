import ReorderRooms

/// One node's log: the local implementation of the registry's `.log` actions (the other is
/// `ClusterAdapter`, over Redis). A `LocalSequencer` orders each append at once; the room applies
/// it and stores its resolved record through the store's group commit (`.persist`), and its
/// `applied` goes out once that is durable. Service thread only.
///
/// Answers are queued and handed to the registry in the order the appends were made, once the
/// batch of actions that made them is performed (`RoomsDriver.perform`): every room applies its
/// ops in seq order, and each batch's writes reach the store in seq order.
final class LocalLog {
  private var sequencer = LocalSequencer()
  private var answers: [(append: LogAppend, result: Result<AppendReply, LogError>)] = []

  /// Performs one action: appends are answered (queued, `takeAnswers()`); a room unfollowed
  /// (unloaded or dropped) goes to `roomGone`.
  func perform(_ action: LogAction, roomGone: (String) -> Void) {
    switch action {
    case .append(let append):
      answers.append((append, sequencer.append(append)))
    case .follow(let room, let after):
      sequencer.follow(room: room, after: after)
    case .unfollow(let room):
      sequencer.unfollow(room: room)
      roomGone(room)
    case .readRange:
      // Nothing is ever ahead of a room here: it applies each answer at once.
      break
    }
  }

  /// The answers queued so far, in append order, to hand to the registry.
  func takeAnswers() -> [(append: LogAppend, result: Result<AppendReply, LogError>)] {
    defer { answers.removeAll() }
    return answers
  }
}
