extension Room {
  /// A `drag` from a member: record it (latest wins); it goes out at the next flush, to the room's
  /// members here and (published) to the other nodes following its presence.
  public mutating func drag(_ drag: DragMessage, from connection: ConnectionHandle) -> [RoomAction] {
    guard let member = members[connection] else { return [] }
    if !drag.phase.isFinal && !board.hasLiveItem(drag.item) {
      return [
        .send(
          connection, ServerMessage.error(ProtocolError(.unknownItem, "drag of an item that does not exist")), .data)
      ]
    }
    presence.update(member.peer, drag)
    link.outbox.drag(member.peer, drag)
    return []
  }

  /// The presence flush (see `Presence.flush(now:members:busy:)`): `drags` frames, and in a large
  /// room `peers` frames, to the welcomed members; `busy` connections are held back.
  public mutating func flushPresence(now: Double = 0, busy: (ConnectionHandle) -> Bool = { _ in false })
    -> [RoomAction]
  {
    // Custom states share the drags' pacing: they go when a flush may, and take its token when
    // no drag or notice did.
    let statesDue = states.hasPending && presence.mayFlush(now: now)
    // Counts in `peers` frames are of the visible members (invisible observers are not peers).
    let flush = presence.flush(now: now, members: roster.count + remotePeerCount, busy: busy)
    counters.presenceFramesSent += flush.dragFrames
    counters.peerFramesSent += flush.peerFrames
    counters.presenceFramesHeld += flush.held
    guard statesDue else { return flush.actions }
    let stateActions = flushPresenceStates()
    if flush.actions.isEmpty && !stateActions.isEmpty { presence.schedule.flushed(now: now) }
    return flush.actions + stateActions
  }

  /// The registry's tick reached this room at `now` (before pacing and flushing it): a fan-out of
  /// an earlier pass has been written (see `PresenceFanout`).
  mutating func presenceTicked(now: Double) { presence.ticked(now: now) }

  /// Applies the registry's pacing to this room (`joining`: members about to join, counted in).
  /// Returns the room's share of the server's drag audience: its members while a drag is in
  /// progress in it, else 0 (`RoomRegistry.dragAudience`).
  @discardableResult
  mutating func pace(_ pacing: PresencePacing, connections: Int, audience: Int, now: Double, joining: Int = 0) -> Int {
    presence.pace(pacing, connections: connections, members: members.count + joining, audience: audience, now: now)
    return presence.current.isEmpty ? 0 : members.count
  }

  /// When this room next needs a presence flush (seconds, the registry's clock), or nil when it
  /// has nothing to send (see `Presence.due(now:retry:)`).
  public func presenceDue(now: Double, retry: Double) -> Double? {
    let due = presence.due(now: now, retry: retry)
    guard states.hasPending else { return due }
    let statesDue = max(now, presence.schedule.nextFlushAt(now: now) ?? now)
    return min(due ?? statesDue, statesDue)
  }

  /// A snapshot of the board if ops were applied since the last one (when unloading or shutting down).
  public mutating func finalSnapshot() -> [RoomAction] {
    guard snapshots.opsSince > 0 else { return [] }
    return [takeSnapshot()]
  }
}
