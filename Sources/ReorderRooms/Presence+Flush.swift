/// What one presence flush produced.
struct PresenceFlush {
  var actions: [RoomAction] = []
  /// `drags` frames, one per recipient.
  var dragFrames = 0
  /// `peers` frames, one per recipient.
  var peerFrames = 0
  /// Recipients due something but held back as busy.
  var held = 0
}

extension Presence {
  /// One flush: each recipient gets at most one `drags` frame with the latest state of every other
  /// session that changed since its last one (`.presence` priority, droppable, unless it ends or
  /// cancels a drag) and, in a large room, at most one `peers` frame with the joins and leaves
  /// since its last one (and the interval when it changed), `.data` priority.
  ///
  /// A recipient whose connection is `busy` (has not drained what it was sent) gets nothing now;
  /// later it gets one frame with the latest state of everything it missed, so a slow connection
  /// sees fewer, fresher frames instead of a growing queue of stale ones. Recipients at the same
  /// point share one encoded frame.
  ///
  /// Paced (see `pace`): a flush that sends takes a token of the room's bucket, and with none left
  /// it does nothing, so leading-edge flushes and ticks together keep to the pacing's rate. In a
  /// room flushed in waves it visits only the next wave (`waveCount` flushes visit every recipient
  /// once, in the order of `recipients`); the others keep what they are due for a later wave.
  /// `members` is the room's member count (for `peers.count`).
  /// - Complexity: O(r + g·(s + n)) for r recipients, g distinct catch-up points, s sessions with
  ///   drags, n notices.
  mutating func flush(now: Double, members: Int, busy: (ConnectionHandle) -> Bool) -> PresenceFlush {
    var out = PresenceFlush()
    guard schedule.mayFlush(now: now) else { return out }
    behind = false
    schedule.waveLeft = false
    notices.announced.formUnion(drags.advance())
    let tick = drags.tick
    // Sessions whose drag changed at the latest round: a recipient one round behind (the usual
    // case) has its own drag in its frame only if its session is one of these (short strings
    // compare cheaply; no dictionary lookup per recipient).
    let changedNow = drags.latest.compactMap { $0.value.version == tick ? $0.key : nil }
    let noticeVersion = notices.version
    let intervalMilliseconds = schedule.intervalMilliseconds
    let announce = isLarge && intervalKnown != intervalMilliseconds
    peersDirty = false
    countDeferred = false
    // Nothing to tell anyone (the last recipient to leave took the notices with it): nothing is
    // due either, or an emptied room would be due at every tick until it unloads.
    guard !drags.latest.isEmpty || !notices.list.isEmpty || announce else { return out }
    // A recipient that knows `listedPeers` peers is sent no `joined`: its news is the count and
    // announced leaves, which it gets at most every `countRefresh` (otherwise a storm would send
    // every member a frame per flush for a count).
    let countDue = now - lastCountFlush >= Presence.countRefresh - schedule.jitter
    var countSent = false
    // Recipients that last got a frame at the same point share one frame: a few groups, usually
    // one, so a short array (no hashing per recipient).
    var dragGroups: [(since: UInt64, connections: [ConnectionHandle])] = []
    var peerGroups: [(seen: UInt64, interval: Bool, full: Bool, connections: [ConnectionHandle])] = []
    var oldestTick = tick
    var oldestSeen = noticeVersion
    // This flush's wave: the positions `start..<start + size` of `recipients` (a rehash as the
    // room grows may reorder them: a recipient then waits at most one more cycle).
    let count = recipients.count
    let waves = schedule.waveCount
    let size = waves > 1 ? (count + waves - 1) / waves : count
    let start = size < count ? schedule.waveStart % count : 0
    var position = 0
    // Through indices and `values[i]`: updating a recipient in place, without a lookup per
    // recipient or a copy of the dictionary.
    var index = recipients.startIndex
    while index != recipients.endIndex {
      defer {
        recipients.formIndex(after: &index)
        position += 1
      }
      let (key, r) = recipients[index]
      let needsDrags = r.tick < tick
      let needsInterval = isLarge && r.interval != intervalMilliseconds
      let full = r.listed >= Presence.listedPeers
      var needsNotices = r.noticesSeen < noticeVersion
      if needsNotices && full && !needsInterval && !countDue {
        needsNotices = false
        countDeferred = true
        oldestSeen = min(oldestSeen, r.noticesSeen)
      }
      guard needsDrags || needsNotices || needsInterval else { continue }
      if position < start || position >= start + size {
        schedule.waveLeft = true
        oldestTick = min(oldestTick, r.tick)
        oldestSeen = min(oldestSeen, r.noticesSeen)
        continue
      }
      if busy(key) {
        out.held += 1
        behind = true
        oldestTick = min(oldestTick, r.tick)
        oldestSeen = min(oldestSeen, r.noticesSeen)
        continue
      }
      if needsDrags {
        let ownChanged =
          r.tick + 1 == tick
          ? changedNow.contains(r.session) : (drags.latest[r.session]?.version ?? 0) > r.tick
        if ownChanged {
          if let frame = drags.frame(after: r.tick, excluding: r.session) {
            out.actions.append(.send(key, frame.bytes, frame.priority))
            out.dragFrames += 1
          }
        } else if let group = dragGroups.firstIndex(where: { $0.since == r.tick }) {
          dragGroups[group].connections.append(key)
        } else {
          dragGroups.append((r.tick, [key]))
          dragGroups[dragGroups.count - 1].connections.reserveCapacity(recipients.count)
        }
        recipients.values[index].tick = tick
      }
      if needsNotices || needsInterval {
        if full { countSent = true }
        if let group = peerGroups.firstIndex(where: {
          $0.seen == r.noticesSeen && $0.interval == needsInterval && $0.full == full
        }) {
          peerGroups[group].connections.append(key)
        } else {
          peerGroups.append((r.noticesSeen, needsInterval, full, [key]))
          peerGroups[peerGroups.count - 1].connections.reserveCapacity(recipients.count)
        }
        recipients.values[index].noticesSeen = noticeVersion
        if isLarge { recipients.values[index].interval = intervalMilliseconds }
      }
    }
    for (since, connections) in dragGroups {
      guard let frame = drags.frame(after: since, excluding: nil) else { continue }
      out.actions.append(Presence.action(connections, frame.bytes, frame.priority))
      out.dragFrames += connections.count
    }
    for (seen, interval, full, connections) in peerGroups {
      let frame = notices.peersFrame(
        after: seen, count: max(0, members - 1), interval: interval ? intervalMilliseconds : nil, listJoined: !full)
      out.actions.append(Presence.action(connections, frame.bytes, .data))
      out.peerFrames += connections.count
      notices.announced.formUnion(frame.joined)
      let change = frame.joined.count - frame.left
      if change != 0 {
        for connection in connections {
          recipients[connection]!.listed = max(0, recipients[connection]!.listed + change)
        }
      }
    }
    // A count refresh is spent once every wave had its turn, so each recipient gets one.
    countSentInCycle = countSentInCycle || countSent
    let cycleEnds = start + size >= count
    if cycleEnds && countSentInCycle {
      lastCountFlush = now
      countSentInCycle = false
    }
    schedule.waveStart = cycleEnds ? 0 : start + size
    if !out.actions.isEmpty { schedule.flushed(now: now) }
    // Finished drags and notices every recipient has been sent are forgotten.
    drags.forgetFinished(upTo: oldestTick)
    notices.forgetSeen(upTo: oldestSeen)
    if isLarge && !behind && !schedule.waveLeft { intervalKnown = intervalMilliseconds }
    return out
  }

  /// When this room next needs a flush (seconds, the registry's clock), or nil when it has nothing
  /// to send: pending drags and notices go when the pacing allows (`now` if it already does);
  /// recipients held back as busy are retried after `retry` seconds; recipients of later waves are
  /// due when the pacing allows.
  /// A fan-out under way is due at once: the next tick ends it (`ticked(now:)`).
  func due(now: Double, retry: Double) -> Double? {
    if schedule.fanout?.openedAt != nil { return now }
    let next = schedule.nextFlushAt(now: now) ?? now
    if hasPending || peersDirty || schedule.waveLeft { return max(now, next) }
    if countDeferred { return max(now, lastCountFlush + Presence.countRefresh, next) }
    return behind ? now + retry : nil
  }

  static func action(_ connections: [ConnectionHandle], _ bytes: [UInt8], _ priority: FramePriority) -> RoomAction {
    connections.count == 1 ? .send(connections[0], bytes, priority) : .broadcast(connections, bytes, priority)
  }
}
