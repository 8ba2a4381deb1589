/// A large room's join and leave notices waiting for the next flushes, and which sessions some
/// connection was told of (only their leaves are listed, so the leaves of sessions nobody heard
/// of cost no bytes per member).
///
/// Invariants: `list` is in version order, its last version is `version` (when not empty); it
/// holds exactly the notices some recipient has not been sent (`forgetSeen`).
struct PresenceNotices: Sendable {
  /// A coalesced join or leave.
  struct Notice: Sendable {
    var version: UInt64
    var peer: PeerInfo
    var joined: Bool
    /// For a leave: whether any connection could know the session (see `announced`).
    var announced = false
  }

  /// Notices not yet sent to every recipient, oldest first.
  private(set) var list: [Notice] = []
  /// The version of the latest notice.
  private(set) var version: UInt64 = 0
  /// Sessions some connection was told of (in a welcome's `peers`, a `peer` or `peers` frame, or a
  /// drag).
  var announced: Set<String> = []

  /// A join or leave to announce; a leave also forgets the session (`announced`). Nothing is
  /// recorded while nobody is welcomed (`hasRecipients` false). Returns whether it was.
  /// - Complexity: O(1) amortized.
  mutating func add(_ peer: PeerInfo, joined: Bool, hasRecipients: Bool) -> Bool {
    let wasAnnounced = joined ? false : announced.remove(peer.session) != nil
    guard hasRecipients else { return false }
    version += 1
    list.append(Notice(version: version, peer: peer, joined: joined, announced: wasAnnounced))
    return true
  }

  /// Every recipient has seen the notices up to `seen`: those are forgotten.
  mutating func forgetSeen(upTo seen: UInt64) {
    if let keep = list.firstIndex(where: { $0.version > seen }) {
      list.removeFirst(keep)
    } else {
      list.removeAll(keepingCapacity: true)
    }
  }

  /// Nobody is welcomed any more: no notice is owed.
  mutating func removeAll() { list.removeAll() }

  /// The `peers` frame for a recipient that has seen the notices up to `seen`: who joined (with
  /// `listJoined`; at most `Presence.listedPeers`, in join order) and who left since (announced
  /// sessions only), a session that did both in the window appearing in neither; `count` other
  /// peers; the interval if `interval` is given. Also returns the sessions listed as joined and
  /// how many left.
  /// - Complexity: O(notices after `seen`).
  func peersFrame(after seen: UInt64, count: Int, interval: Int?, listJoined: Bool)
    -> (bytes: [UInt8], joined: [String], left: Int)
  {
    let start = list.firstIndex { $0.version > seen } ?? list.endIndex
    var joined: [PeerInfo] = []
    var joinedAt: [String: Int] = [:]
    var left: [String] = []
    for notice in list[start...] {
      if notice.joined {
        joinedAt[notice.peer.session] = joined.count
        joined.append(notice.peer)
      } else if let index = joinedAt.removeValue(forKey: notice.peer.session) {
        joined[index].session = ""
      } else if notice.announced {
        left.append(notice.peer.session)
      }
    }
    let listed = listJoined ? Array(joined.lazy.filter { !$0.session.isEmpty }.prefix(Presence.listedPeers)) : []
    let bytes = ServerMessage.peers(joined: listed, left: left, count: count, intervalMilliseconds: interval)
    return (bytes, listed.map(\.session), left.count)
  }
}
