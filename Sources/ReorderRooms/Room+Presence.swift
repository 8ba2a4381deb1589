extension Room {
  /// A `drag` from a member: record it (latest wins); it goes out at the next tick.
  public mutating func drag(_ drag: DragMessage, from connection: ConnectionHandle) -> [RoomAction] {
    guard let member = members[connection] else { return [] }
    if !drag.phase.isFinal && !board.hasLiveItem(drag.item) {
      return [
        .send(
          connection, ServerMessage.error(ProtocolError(.unknownItem, "drag of an item that does not exist")), .data)
      ]
    }
    presence.update(member.peer, drag)
    return []
  }

  /// The presence tick: each welcomed member gets one `drags` frame with the latest state of every
  /// other session that changed since its last frame. Sent with `.presence` priority (droppable)
  /// unless it ends or cancels a drag.
  ///
  /// A member whose connection is `busy` (has not drained what it was sent) gets nothing this tick;
  /// later it gets one frame with the latest state of everything it missed, so a slow connection sees
  /// fewer, fresher frames instead of a growing queue of stale ones. Members that last got a frame at
  /// the same tick share one encoded frame.
  ///
  /// Paced (see `Presence.pace`): a flush that sends takes a token of the room's flush bucket, and
  /// with none left it does nothing, so leading-edge flushes (`flushPresenceEarly`) and ticks
  /// together keep to the pacing's rate.
  /// - Complexity: O(m + g·s) for m members, g distinct catch-up points, s sessions with drags.
  public mutating func flushPresence(now: Double = 0, busy: (ConnectionHandle) -> Bool = { _ in false })
    -> [RoomAction]
  {
    guard presence.mayFlush(now: now) else { return [] }
    membersBehind = false
    if presence.hasPending {
      presenceTick += 1
      for update in presence.flush() { latestDrags[update.session] = (presenceTick, update.update, update.isFinal) }
    }
    guard !latestDrags.isEmpty else { return [] }
    // Members that last got a frame at the same tick share one frame: a few groups, usually one,
    // so a short array (no hashing per member).
    var groups: [(since: UInt64, connections: [ConnectionHandle])] = []
    var actions: [RoomAction] = []
    // Sessions whose drag changed at this very tick: a member one tick behind (the usual case) has
    // its own drag in its frame only if its session is one of these (short strings compare cheaply;
    // no dictionary lookup per member).
    let changedNow = latestDrags.compactMap { $0.value.version == presenceTick ? $0.key : nil }
    // Through indices and `values[i]`: updating a member in place, without a lookup per member or
    // a copy of the dictionary (iterating `keys` while writing would copy it).
    var index = members.startIndex
    while index != members.endIndex {
      defer { members.formIndex(after: &index) }
      let (key, member) = members[index]
      guard member.welcomedAt != nil, member.presenceTick < presenceTick else { continue }
      if busy(key) {
        counters.presenceFramesHeld += 1
        membersBehind = true
        continue
      }
      let ownChanged =
        member.presenceTick + 1 == presenceTick
        ? changedNow.contains(member.peer.session)
        : (latestDrags[member.peer.session]?.version ?? 0) > member.presenceTick
      if ownChanged {
        let frame = dragsFrame(after: member.presenceTick, excluding: member.peer.session)
        if let frame { actions.append(.send(key, frame.bytes, frame.priority)) }
      } else if let group = groups.firstIndex(where: { $0.since == member.presenceTick }) {
        groups[group].connections.append(key)
      } else {
        groups.append((member.presenceTick, [key]))
        groups[groups.count - 1].connections.reserveCapacity(members.count)
      }
      members.values[index].presenceTick = presenceTick
    }
    for (since, connections) in groups {
      guard let frame = dragsFrame(after: since, excluding: nil) else { continue }
      actions.append(
        connections.count == 1
          ? .send(connections[0], frame.bytes, frame.priority) : .broadcast(connections, frame.bytes, frame.priority))
    }
    if !actions.isEmpty {
      presence.flushed(now: now)
      counters.presenceFramesSent += RoomCounters.recipients(actions)
    }
    // Finished drags everyone has been sent are forgotten.
    let oldest = members.values.lazy.filter { $0.welcomedAt != nil }.map(\.presenceTick).min() ?? presenceTick
    latestDrags = latestDrags.filter { !$0.value.isFinal || $0.value.version > oldest }
    return actions
  }

  /// When this room next needs a presence flush (seconds, the registry's clock), or nil when it
  /// has nothing to send: pending drags go when the pacing allows (`now` if it already does);
  /// members held back as busy are retried after `retry` seconds.
  public func presenceDue(now: Double, retry: Double) -> Double? {
    if presence.hasPending { return max(now, presence.nextFlushAt ?? now) }
    return membersBehind ? now + retry : nil
  }

  /// The `drags` frame of every session changed after tick `since` (in session order), or nil.
  func dragsFrame(after since: UInt64, excluding session: String?) -> (bytes: [UInt8], priority: FramePriority)? {
    let updates = latestDrags.filter { $0.value.version > since && $0.key != session }.sorted { $0.key < $1.key }
    guard !updates.isEmpty else { return nil }
    let priority: FramePriority = updates.contains { $0.value.isFinal } ? .data : .presence
    return (ServerMessage.drags(updates.map(\.value.update)), priority)
  }

  /// A snapshot of the board if ops were applied since the last one (when unloading or shutting down).
  public mutating func finalSnapshot() -> [RoomAction] {
    guard opsSinceSnapshot > 0 else { return [] }
    return [takeSnapshot()]
  }
}
