/// Presence across the nodes following a room (`PresenceAction`). This node's changes (visible
/// joins and leaves, drags, states, broadcasts) are gathered in `link.outbox`: joins, leaves and
/// broadcasts are published at once (with whatever else waits), drags and states once per
/// presence flush; other nodes' messages and the roster are merged here, so their sessions are peers of this room like local ones: joins and
/// leaves reach the members as `peer` frames (notices in a large room), drags go into the same
/// `drags` frames, and a session that leaves mid-drag is a `cancel` for everyone.
extension Room {
  /// Peers on other nodes.
  var remotePeerCount: Int { link.remote.count }

  /// A visible member of this node joined: into the roster, and published.
  mutating func linkJoined(_ connection: ConnectionHandle) -> [RoomAction] {
    guard let member = members[connection], member.visible else { return [] }
    link.outbox.join(member.peer)
    let entry = PresenceMessage.rosterEntry(node: log.node, peer: member.peer)
    return [.presence(.rosterJoin(room: name, session: member.peer.session, peer: entry))] + publishUrgent()
  }

  /// A visible member of this node left: out of the roster, and published.
  mutating func linkLeft(_ peer: PeerInfo, visible: Bool) -> [RoomAction] {
    guard visible else { return [] }
    link.outbox.leave(peer.session)
    return [.presence(.rosterLeave(room: name, session: peer.session))] + publishUrgent()
  }

  /// The outbox as a `.publish` now, when it holds a join, a leave or a broadcast (those are not
  /// paced), so that a room with nothing else to send is never due for a publish.
  mutating func publishUrgent() -> [RoomAction] {
    guard link.outbox.isUrgent else { return [] }
    let outbox = link.outbox
    link.outbox = PresenceMessage()
    return [.presence(.publish(room: name, message: outbox))]
  }

  /// This node's presence changes since the last publish, as a `.publish`: drags and states at
  /// most once per presence interval of the room, like its own flushes, so a room's drags cost
  /// other nodes one message per interval (joins, leaves and broadcasts went at once).
  mutating func publishPresence(now: Double) -> [RoomAction] {
    guard !link.outbox.isEmpty else { return [] }
    let rate = presence.schedule.flushes?.rate ?? 30
    var publishes = link.publishes ?? TokenBucket(rate: rate, burst: 1, now: now)
    publishes.rate = rate
    let paced = publishes.take(now: now, tolerance: presence.schedule.jitter)
    link.publishes = publishes
    let outbox = link.outbox
    guard paced || outbox.isUrgent else { return [] }
    link.outbox = PresenceMessage()
    return [.presence(.publish(room: name, message: outbox))]
  }

  /// When this room's presence changes are next due to be published, or nil when none wait.
  func publishDue(now: Double) -> Double? {
    guard !link.outbox.isEmpty else { return nil }
    guard !link.outbox.isUrgent, let bucket = link.publishes else { return now }
    return max(now, bucket.nextTokenAt)
  }

  /// Another node's published changes: its joins, then its drags (a drag of a session not heard
  /// of counts as its join), then its leaves. They go out with this room's next flush.
  mutating func mergeRemote(_ message: PresenceMessage, now: Double) -> [RoomAction] {
    var actions: [RoomAction] = []
    for peer in message.joined { actions.append(contentsOf: remoteJoined(peer, now: now)) }
    for entry in message.drags {
      actions.append(contentsOf: remoteJoined(entry.peer, now: now))
      presence.update(entry.peer, entry.drag)
    }
    for entry in message.states where link.remote[entry.session] != nil {
      states.set(entry.session, entry.value)
    }
    for entry in message.broadcasts where link.remote[entry.session] != nil {
      actions.append(contentsOf: relayBroadcast(session: entry.session, entry.value, except: nil))
    }
    for session in message.left { actions.append(contentsOf: remoteLeft(session)) }
    return actions
  }

  /// The roster as read (other nodes' sessions): sessions new to this room join; sessions it no
  /// longer lists leave (their drags cancelled), unless a presence message named them within
  /// `grace` seconds (the read may be older than their join).
  mutating func mergeRoster(_ peers: [PeerInfo], now: Double, grace: Double) -> [RoomAction] {
    var actions: [RoomAction] = []
    var listed = Set<String>()
    for peer in peers {
      listed.insert(peer.session)
      if link.remote[peer.session] == nil {
        actions.append(contentsOf: remoteJoined(peer, now: -.infinity))
      }
    }
    let gone = link.remote.filter { !listed.contains($0.key) && now - $0.value.heardAt >= grace }.keys
      .sorted()
    for session in gone { actions.append(contentsOf: remoteLeft(session)) }
    return actions
  }

  mutating func remoteJoined(_ peer: PeerInfo, now: Double) -> [RoomAction] {
    if let known = link.remote[peer.session] {
      link.remote[peer.session]?.heardAt = max(known.heardAt, now)
      return []
    }
    link.remote[peer.session] = PresenceLink.RemotePeer(peer: peer, heardAt: now)
    presence.isLarge = members.count + remotePeerCount > limits.largeRoomMembers
    return announceJoin(peer)
  }

  mutating func remoteLeft(_ session: String) -> [RoomAction] {
    guard let gone = link.remote.removeValue(forKey: session) else { return [] }
    presence.cancel(gone.peer)
    states.remove(session)
    let actions = announceLeave(gone.peer)
    presence.isLarge = members.count + remotePeerCount > limits.largeRoomMembers
    return actions
  }
}
