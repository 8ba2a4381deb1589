import ReorderRooms

/// What applying the shared log changed goes to the summaries (the board list's and
/// `board.changed`, sent by each room's lease holder), whoever made the ops.
extension ClusterSummaries {
  /// Runs `body`, which hands `receiver` append answers or log entries of `rooms`, and takes each
  /// room whose seq it advanced (or whose epoch it changed) as changed. Service thread.
  func reportingChanges(of rooms: Set<String>, to receiver: any PortAnswers, _ body: () -> Void) {
    var before: [String: (epoch: String, seq: UInt64)] = [:]
    for name in rooms { before[name] = receiver.logPosition(room: name) }
    body()
    for (name, was) in before {
      guard let position = receiver.logPosition(room: name), position.seq > 0 else { continue }
      let from: UInt64
      if position.epoch != was.epoch {
        from = 1
      } else if position.seq > was.seq {
        from = was.seq + 1
      } else {
        continue
      }
      guard let now = receiver.logSummary(room: name) else { continue }
      changed(
        room: name, epoch: now.epoch, fromSeq: from, toSeq: now.seq, lists: now.lists, items: now.items,
        actors: receiver.logActors(room: name, from: from, through: now.seq))
    }
  }
}
