import ReorderCluster
import ReorderRooms

/// Cluster mode: what applying the shared log changed goes to `ClusterSummaries` (the board
/// list's summaries and `board.changed`, sent by the room's lease holder).
extension RoomsDriver {
  /// Runs `body`, which applies log entries or append answers of `rooms`, and hands each room
  /// whose seq it advanced (or whose epoch it changed) to the summaries. Service thread.
  func reportingChanges(of rooms: Set<String>, _ body: () -> Void) {
    guard let summaries = clusterSummaries else { return body() }
    var before: [String: (epoch: String, seq: UInt64)] = [:]
    for name in rooms { before[name] = registry.position(room: name) }
    body()
    for (name, was) in before {
      guard let position = registry.position(room: name), position.seq > 0 else { continue }
      let from: UInt64
      if position.epoch != was.epoch {
        from = 1
      } else if position.seq > was.seq {
        from = was.seq + 1
      } else {
        continue
      }
      guard let now = registry.summary(room: name) else { continue }
      summaries.changed(
        room: name, epoch: now.epoch, fromSeq: from, toSeq: now.seq, lists: now.lists, items: now.items,
        actors: registry.actors(room: name, from: from, through: now.seq))
    }
  }
}
