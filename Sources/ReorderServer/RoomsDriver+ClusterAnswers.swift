import ReorderBasics
import ReorderCluster
import ReorderRedis
import ReorderRooms

/// The answers of the cluster threads, on the service thread.
extension RoomsDriver: ClusterAnswers {
  func post(_ work: @escaping @Sendable () -> Void) { transport?.post(work) }

  func clusterRangeFailed(room: String) { perform(registry.rangeFailed(room: room)) }

  func clusterFollowEpoch(room: String) -> String? { registry.followEpoch(room: room) }

  func clusterRoomGone(_ room: String) { api.apiRoomGone(room) }

  func clusterHistoryChanged(room: String, epoch: String?) {
    let now = MonotonicClock.now()
    perform(registry.logHistoryChanged(room: room, epoch: epoch, now: now))
    requestTick(due: registry.nextTick(room: room, now: now), now: now)
  }

  func clusterAppended(_ answers: [ClusterAppender.Answer]) {
    let now = MonotonicClock.now()
    reportingChanges(of: Set(answers.map(\.append.room))) {
      for answer in answers {
        let waited = cluster?.answered(answer.append, now: now)
        if case .success = answer.result, let waited { recordDurable(seconds: waited) }
        perform(registry.appended(answer.append, result: answer.result, now: now))
      }
    }
    requestTick(due: registry.nextTick(now: now), now: now)
  }

  func clusterLogged(room: String, entries: [AppendedEntry]) {
    let now = MonotonicClock.now()
    reportingChanges(of: [room]) { perform(registry.logged(room: room, entries: entries, now: now)) }
    requestTick(due: registry.nextTick(room: room, now: now), now: now)
  }

  func clusterPresence(_ messages: [ReorderRedis.PresenceMessage]) {
    let now = MonotonicClock.now()
    for message in messages {
      perform(registry.presenceReceived(room: message.room, node: message.node, payload: message.payload, now: now))
      requestTick(due: registry.nextTick(room: message.room, now: now), now: now)
    }
  }

  func clusterRoster(room: String, entries: [[UInt8]]) {
    let now = MonotonicClock.now()
    perform(registry.roster(room: room, entries: entries, now: now))
    requestTick(due: registry.nextTick(room: room, now: now), now: now)
  }
}
