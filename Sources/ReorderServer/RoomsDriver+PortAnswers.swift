import ReorderBasics
import ReorderRooms

/// The answers of the log and presence ports, on the service thread: the same for one node's
/// local implementations and a cluster's Redis ones.
extension RoomsDriver: PortAnswers {
  func post(_ work: @escaping @Sendable () -> Void) { transport?.post(work) }

  func logAppended(_ answers: [LogAnswer]) {
    let now = MonotonicClock.now()
    let rooms = Set(answers.map(\.append.room))
    // One perform for the whole batch: the writes it leads to reach the store as one append per room.
    perform(answers.flatMap { registry.appended($0.append, result: $0.result, now: now) })
    for room in rooms { requestTick(due: registry.nextTick(room: room, now: now), now: now) }
  }

  func logCommitWaited(seconds: Double) { recordDurable(seconds: seconds) }

  func logDurable(room: String, upTo seq: UInt64) { perform(registry.durable(room: room, upTo: seq)) }

  func logWriteFailed(room: String, error: RoomStoreError) { perform(registry.writeFailed(room: room, error: error)) }

  func logEpoch(room: String) -> String? { registry.epoch(room: room) }

  func logSummary(room: String) -> BoardSummary? { registry.summary(room: room) }

  func logPosition(room: String) -> (epoch: String, seq: UInt64)? { registry.position(room: room) }

  func logActors(room: String, from: UInt64, through: UInt64) -> [OpActor] {
    registry.actors(room: room, from: from, through: through)
  }

  func logEntries(room: String, entries: [AppendedEntry]) {
    let now = MonotonicClock.now()
    perform(registry.logged(room: room, entries: entries, now: now))
    requestTick(due: registry.nextTick(room: room, now: now), now: now)
  }

  func logRangeFailed(room: String) { perform(registry.rangeFailed(room: room)) }

  func logHistoryChanged(room: String, epoch: String?) {
    let now = MonotonicClock.now()
    perform(registry.logHistoryChanged(room: room, epoch: epoch, now: now))
    requestTick(due: registry.nextTick(room: room, now: now), now: now)
  }

  func logRoomGone(_ room: String) { api.apiRoomGone(room) }

  func logFollowEpoch(room: String) -> String? { registry.followEpoch(room: room) }

  func presenceReceived(room: String, node: String, payload: [UInt8]) {
    let now = MonotonicClock.now()
    perform(registry.presenceReceived(room: room, node: node, payload: payload, now: now))
    requestTick(due: registry.nextTick(room: room, now: now), now: now)
  }

  func rosterRead(room: String, entries: [[UInt8]]) {
    let now = MonotonicClock.now()
    perform(registry.roster(room: room, entries: entries, now: now))
    requestTick(due: registry.nextTick(room: room, now: now), now: now)
  }
}
