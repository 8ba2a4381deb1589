/// Who gets presence, and the join and leave notices of a large room.
///
/// A small room announces a join or a leave at once with a `peer` frame to everyone (the room
/// does that). A large room instead records a notice here; the next flush sends each recipient one
/// `peers` frame with the joins and leaves since its last one and the exact count of the others.
/// Joins are listed to a recipient only while it knows of fewer than `listedPeers` peers, and
/// leaves only of sessions someone was told of (`announced`): so once a room is full of listed
/// peers a join costs O(1) plus a count-only frame per member per flush, in bytes as in frames.
extension Presence {
  /// The most peers a `welcome` lists, and a `peers` frame's `joined` holds.
  public static let listedPeers = 100

  /// `connection` got its welcome (which listed the peers and stated the interval): from now on it
  /// is sent presence.
  /// - Complexity: O(1) amortized.
  /// `listed`: the sessions its welcome's `peers` named (they are announced from now on).
  mutating func addRecipient(_ connection: ConnectionHandle, session: String, listed: [String]) {
    recipients[connection] = Recipient(
      session: session, tick: drags.tick, noticesSeen: notices.version, interval: intervalMilliseconds,
      listed: listed.count)
    notices.announced.formUnion(listed)
  }

  /// `session` was named to `recipients` (a small room's `peer` join).
  /// - Complexity: O(recipients).
  mutating func announce(_ session: String, to told: [ConnectionHandle]) {
    notices.announced.insert(session)
    for connection in told { recipients[connection]?.listed += 1 }
  }

  /// `connection` left.
  /// - Complexity: O(1) amortized.
  mutating func removeRecipient(_ connection: ConnectionHandle) {
    recipients[connection] = nil
    if recipients.isEmpty { notices.removeAll() }
  }

  /// A join or leave to announce at the next flush (nothing to do while nobody is welcomed).
  /// - Complexity: O(1) amortized.
  /// A leave also forgets the session (`announced`).
  mutating func notice(_ peer: PeerInfo, joined: Bool) {
    if notices.add(peer, joined: joined, hasRecipients: !recipients.isEmpty) { peersDirty = true }
  }

  /// A small room's `peer` leave, told to `recipients`: the session leaves the announced ones.
  /// - Complexity: O(recipients).
  mutating func forget(_ session: String, told: [ConnectionHandle]) {
    notices.announced.remove(session)
    for connection in told { recipients[connection].map { recipients[connection]!.listed = max(0, $0.listed - 1) } }
  }

  /// Whether notices wait to be sent (then joins and leaves stay coalesced, so they keep their order).
  var hasNotices: Bool { !notices.list.isEmpty }
}
