/// Who gets presence, and the join and leave notices of a large room.
///
/// A small room announces a join or a leave at once with a `peer` frame to everyone (the room
/// does that). A large room instead records a notice here; the next flush sends each recipient one
/// `peers` frame with every join and leave since its last one (at most `listedPeers` joined, the
/// exact count of the others), so a join costs O(1) plus a share of one frame per member per flush.
extension Presence {
  /// The most peers a `welcome` lists, and a `peers` frame's `joined` holds.
  public static let listedPeers = 100

  /// `connection` got its welcome (which listed the peers and stated the interval): from now on it
  /// is sent presence.
  /// - Complexity: O(1) amortized.
  mutating func addRecipient(_ connection: ConnectionHandle, session: String) {
    recipients[connection] = Recipient(
      session: session, tick: tick, noticesSeen: noticeVersion, interval: intervalMilliseconds)
  }

  /// `connection` left.
  /// - Complexity: O(1) amortized.
  mutating func removeRecipient(_ connection: ConnectionHandle) {
    recipients[connection] = nil
    if recipients.isEmpty { notices.removeAll() }
  }

  /// A join or leave to announce at the next flush (nothing to do while nobody is welcomed).
  /// - Complexity: O(1) amortized.
  mutating func notice(_ peer: PeerInfo, joined: Bool) {
    guard !recipients.isEmpty else { return }
    noticeVersion += 1
    notices.append(Notice(version: noticeVersion, peer: peer, joined: joined))
    peersDirty = true
  }

  /// Whether notices wait to be sent (then joins and leaves stay coalesced, so they keep their order).
  var hasNotices: Bool { !notices.isEmpty }

  /// The `peers` frame for a recipient that has seen the notices up to `seen`: who joined (at most
  /// `listedPeers`, in join order) and who left since, a session that did both in the window
  /// appearing in neither; `count` other peers; the interval if `interval` is given.
  /// - Complexity: O(notices after `seen`).
  func peersFrame(after seen: UInt64, count: Int, interval: Int?) -> [UInt8] {
    let start = notices.firstIndex { $0.version > seen } ?? notices.endIndex
    var joined: [PeerInfo] = []
    var joinedAt: [String: Int] = [:]
    var left: [String] = []
    for notice in notices[start...] {
      if notice.joined {
        joinedAt[notice.peer.session] = joined.count
        joined.append(notice.peer)
      } else if let index = joinedAt.removeValue(forKey: notice.peer.session) {
        joined[index].session = ""
      } else {
        left.append(notice.peer.session)
      }
    }
    let listed = joined.lazy.filter { !$0.session.isEmpty }.prefix(Presence.listedPeers)
    return ServerMessage.peers(joined: Array(listed), left: left, count: count, intervalMilliseconds: interval)
  }
}
