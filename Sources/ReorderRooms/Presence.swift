/// One session's latest drag state, encoded for a `drags` frame.
public typealias PresenceUpdate = (session: String, update: [UInt8], isFinal: Bool)

/// Who a session is, as the others see it.
public struct PeerInfo: Sendable, Equatable {
  /// The server-made session id.
  public var session: String
  /// Display name from `hello`.
  public var name: String
  /// Display colour from `hello`.
  public var color: String

  /// A peer.
  public init(session: String, name: String, color: String) {
    self.session = session
    self.name = name
    self.color = color
  }
}

/// Everything about presence in one room, in one place: the drags (`PresenceDrags`), when the
/// room flushes and whom each flush visits (`PresenceSchedule`), what each welcomed connection
/// has been sent (`recipients`), and, in a large room, the join and leave notices waiting for the
/// next flush (`PresenceNotices`). Nothing here is ever stored.
///
/// Invariants: each recipient's `tick <= drags.tick` and `noticesSeen <= notices.version`;
/// `notices` holds exactly the notices some recipient has not been sent, and `drags.latest` the
/// finished drags only until every recipient has had them. Sizes are bounded by the sessions, and
/// the notices by the joins and leaves since the slowest recipient's last frame.
public struct Presence: Sendable {
  /// A welcomed connection, as presence sees it.
  struct Recipient: Sendable {
    /// Its session (its own drags are not sent back to it).
    var session: String
    /// The flush round of its last `drags` frame (or of its welcome).
    var tick: UInt64
    /// The last notice it was sent (or that its welcome covered).
    var noticesSeen: UInt64
    /// The presence interval it was last told (ms).
    var interval: Int
    /// About how many peers it was told of (listed in its welcome and `joined`, less `left`): it
    /// is sent `joined` entries only while this is below `listedPeers`.
    var listed: Int
  }

  /// The drags: in progress, waiting for the next flush, and as last flushed.
  var drags = PresenceDrags()
  /// When the room may flush, and the waves of a room flushed in waves.
  var schedule = PresenceSchedule()
  /// Welcomed connections.
  var recipients: [ConnectionHandle: Recipient] = [:]
  /// Join and leave notices of a large room, and the sessions some connection was told of.
  var notices = PresenceNotices()
  /// When a flush last sent a `peers` frame to a recipient that knows `listedPeers` peers.
  var lastCountFlush = -Double.infinity
  /// The last flush left such recipients' count for later (see `countRefresh`).
  var countDeferred = false
  /// A `peers` frame with the count went out in the current cycle of waves (see `countRefresh`).
  var countSentInCycle = false
  /// How often a recipient that knows `listedPeers` peers is sent `peers` for the count and
  /// leaves alone (seconds).
  public static let countRefresh = 0.5
  /// Whether the last flush held a recipient back because its connection was busy.
  var behind = false
  /// The interval every recipient knows, when they all do.
  var intervalKnown: Int? = 33
  /// Whether the room has more members than `RoomLimits.largeRoomMembers`: its joins and leaves
  /// are coalesced into `peers` frames, and interval changes announced (set by the room).
  var isLarge = false
  /// A notice was added or the announced interval changed since the last flush: the room is due.
  var peersDirty = false

  /// No drags, no recipients.
  public init() {}

  /// Drags in progress, by session, with who drags.
  var current: [String: (peer: PeerInfo, drag: DragMessage)] { drags.current }

  /// The room's current interval in ms (as `welcome` and `peers` state it).
  var intervalMilliseconds: Int { schedule.intervalMilliseconds }

  /// Records the latest drag of `peer`, replacing any unflushed one.
  /// - Complexity: O(1) amortized.
  public mutating func update(_ peer: PeerInfo, _ drag: DragMessage) { drags.update(peer, drag) }

  /// `peer` left: a drag in progress becomes a `cancel` for everyone. Returns whether there was one.
  @discardableResult
  public mutating func cancel(_ peer: PeerInfo) -> Bool { drags.cancel(peer) }

  /// Whether any drag update waits for the next flush.
  public var hasPending: Bool { drags.hasPending }

  /// Applies `pacing` for a room of `members` on a server with `connections` open and `audience`
  /// members in its rooms with drags in progress (`PresenceSchedule.pace`); a large room announces a
  /// changed interval at its next flush.
  mutating func pace(_ pacing: PresencePacing, connections: Int, members: Int, audience: Int, now: Double) {
    if schedule.pace(pacing, connections: connections, members: members, audience: audience, now: now) && isLarge {
      peersDirty = true
    }
  }

  /// Whether the pacing lets the room flush at `now` (`PresenceSchedule.mayFlush`).
  mutating func mayFlush(now: Double) -> Bool { schedule.mayFlush(now: now) }

  /// A tick at `now`: a fan-out under way has ended (`PresenceSchedule.ticked`).
  mutating func ticked(now: Double) { schedule.ticked(now: now) }

  // MARK: JSON

  /// `{session,name,color,phase,item,list,over,index,x,y,t}` with `null` for absent members.
  public static func updateJSON(_ peer: PeerInfo, _ drag: DragMessage) -> JSONValue {
    var members: [(key: String, value: JSONValue)] = [
      ("session", .string(peer.session)), ("name", .string(peer.name)), ("color", .string(peer.color)),
    ]
    members.append(contentsOf: dragMembers(drag))
    return .object(members)
  }

  /// `{phase,item,list,over,index,x,y,t}` with `null` for absent members.
  public static func dragJSON(_ drag: DragMessage) -> JSONValue { .object(dragMembers(drag)) }

  static func dragMembers(_ drag: DragMessage) -> [(key: String, value: JSONValue)] {
    [
      ("phase", .string(drag.phase.rawValue)), ("item", .string(drag.item)), ("list", .stringOrNull(drag.list)),
      ("over", .stringOrNull(drag.over)), ("index", drag.index.map { .int($0) } ?? .null),
      ("x", drag.x.map { .number($0) } ?? .null), ("y", drag.y.map { .number($0) } ?? .null),
      ("t", drag.t ?? .null),
    ]
  }
}
