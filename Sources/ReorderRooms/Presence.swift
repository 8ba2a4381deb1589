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

/// Everything about presence in one room, in one place: the drags (latest wins per session), the
/// pacing of the room's flushes, what each welcomed connection has been sent, and, in a large
/// room, the join and leave notices waiting for the next flush. Nothing here is ever stored.
///
/// Invariants: `current` holds only drags whose phase is `start`/`move` (in progress); `pending`
/// holds at most one update per session (the latest), in first-change order; `latest` holds the
/// last flushed update of each session, finished ones only until every recipient has had them;
/// each recipient's `tick <= tick` and `noticesSeen <= noticeVersion`; `notices` holds exactly the
/// notices some recipient has not been sent. Sizes are bounded by the sessions, and `notices` by
/// the joins and leaves since the slowest recipient's last frame.
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

  /// A coalesced join or leave.
  struct Notice: Sendable {
    var version: UInt64
    var peer: PeerInfo
    var joined: Bool
    /// For a leave: whether any connection could know the session (see `announced`).
    var announced = false
  }

  /// Drags in progress, by session, with who drags.
  private(set) var current: [String: (peer: PeerInfo, drag: DragMessage)] = [:]
  private var pending: [String: (peer: PeerInfo, drag: DragMessage)] = [:]
  private var order: [String] = []
  /// Paces the room's flushes (see `PresencePacing`): a flush that sends takes a token. Nil until
  /// `pace(_:connections:members:now:)`, when every flush may send.
  private(set) var flushes: TokenBucket?
  /// In a room too large for the frame budget, the timing of its fan-outs, which paces it
  /// (`PresenceFanout`); nil in other rooms.
  private(set) var fanout: PresenceFanout?
  /// How many flushes write every recipient once (`PresencePacing.waveSize`): more than 1 only
  /// in a room paced by its fan-outs with more recipients than a wave.
  private(set) var waveCount = 1
  /// Where the next wave starts, as a position in `recipients`.
  var waveStart = 0
  /// The last flush left recipients outside its wave that were due something: the room is due
  /// again when its pacing allows.
  var waveLeft = false
  /// A `peers` frame with the count went out in the current cycle of waves (see `countRefresh`).
  var countSentInCycle = false
  /// The room's current interval in ms (as `welcome` and `peers` state it).
  private(set) var intervalMilliseconds = 33
  /// Flush rounds that had drag updates, counted.
  var tick: UInt64 = 0
  /// The latest flushed update of each session and the round it changed at.
  var latest: [String: (version: UInt64, update: [UInt8], isFinal: Bool)] = [:]
  /// Welcomed connections.
  var recipients: [ConnectionHandle: Recipient] = [:]
  /// Join/leave notices not yet sent to every recipient, oldest first.
  var notices: [Notice] = []
  /// The version of the latest notice.
  var noticeVersion: UInt64 = 0
  /// Sessions some connection was told of (in a welcome's `peers`, a `peer` or `peers` frame, or a
  /// drag): only their leaves are listed in `left`, so the leaves of sessions nobody heard of
  /// cost no bytes per member.
  var announced: Set<String> = []
  /// When a flush last sent a `peers` frame to a recipient that knows `listedPeers` peers.
  var lastCountFlush = -Double.infinity
  /// The last flush left such recipients' count for later (see `countRefresh`).
  var countDeferred = false
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

  /// Records the latest drag of `peer`, replacing any unflushed one.
  /// - Complexity: O(1) amortized.
  public mutating func update(_ peer: PeerInfo, _ drag: DragMessage) {
    if drag.phase.isFinal {
      current[peer.session] = nil
    } else {
      current[peer.session] = (peer, drag)
    }
    if pending.updateValue((peer, drag), forKey: peer.session) == nil { order.append(peer.session) }
  }

  /// `peer` left: a drag in progress becomes a `cancel` for everyone. Returns whether there was one.
  @discardableResult
  public mutating func cancel(_ peer: PeerInfo) -> Bool {
    guard let drag = current[peer.session]?.drag else {
      // A start that was never flushed: drop it silently.
      if let unflushed = pending[peer.session], !unflushed.drag.phase.isFinal {
        pending[peer.session] = nil
        order.removeAll { $0 == peer.session }
      }
      return false
    }
    var cancelled = drag
    cancelled.phase = .cancel
    update(peer, cancelled)
    return true
  }

  /// Whether any drag update waits for the next flush.
  public var hasPending: Bool { !order.isEmpty }

  /// Takes the pending updates, oldest change first: (session, encoded update, whether final).
  /// - Complexity: O(p) in the number of pending updates.
  public mutating func takePending() -> [PresenceUpdate] {
    defer {
      pending.removeAll(keepingCapacity: true)
      order.removeAll(keepingCapacity: true)
    }
    return order.compactMap { session in
      guard let entry = pending[session] else { return nil }
      return (session, Presence.updateJSON(entry.peer, entry.drag).encoded(), entry.drag.phase.isFinal)
    }
  }

  // MARK: Pacing

  /// Applies `pacing` for a room of `members` on a server with `connections` open: the flush rate
  /// and burst follow it (see `PresencePacing.interval(connections:members:)`).
  ///
  /// A room that alone would exceed the budget at the server's interval is also paced by its
  /// fan-outs (`PresenceFanout`): one flush at a time, each after the previous fan-out ended and
  /// its gap passed, and never sooner than the budget's interval; its interval is the longer of
  /// the two, a measured one announced only when it moves by more than
  /// `PresenceFanout.announceChange`. Its bucket starts afresh (one token) when it becomes such a
  /// room, so that flushes saved up before do not outlast the switch. Such a room with more
  /// members than `pacing.waveSize` is flushed in waves, one per flush: its bucket then gives one
  /// token per wave, and the interval, each member's, spans the waves.
  mutating func pace(_ pacing: PresencePacing, connections: Int, members: Int, now: Double) {
    let budget = pacing.interval(connections: connections, members: members)
    var interval = budget
    var burst = Double(pacing.burst)
    if budget > pacing.interval(connections: connections) {
      if fanout == nil {
        fanout = PresenceFanout()
        flushes = nil
      }
      let size = max(1, pacing.waveSize)
      waveCount = max(1, (members + size - 1) / size)
      fanout!.waves = waveCount
      interval = fanout!.interval(shortest: budget) ?? budget
      burst = 1
    } else {
      fanout = nil
      waveCount = 1
    }
    let rate = Double(waveCount) / interval
    let milliseconds = max(1, Int((interval * 1_000).rounded()))
    if milliseconds != intervalMilliseconds
      && (interval == budget || PresenceFanout.shouldAnnounce(milliseconds, replacing: intervalMilliseconds))
    {
      intervalMilliseconds = milliseconds
      if isLarge { peersDirty = true }
    }
    if flushes == nil {
      flushes = TokenBucket(rate: rate, burst: burst, now: now)
    } else {
      flushes!.rate = rate
      flushes!.burst = burst
    }
  }

  /// Whether the pacing lets the room flush at `now` (always when unpaced). A tenth of an
  /// interval (at most 2 ms) early counts as on time, for timer jitter.
  /// A room paced by its fan-outs also waits for the last one to end and its gap to pass.
  mutating func mayFlush(now: Double) -> Bool {
    if let fanout, !fanout.allows(now: now) { return false }
    guard flushes != nil else { return true }
    let tolerance = jitter
    return flushes!.hasToken(now: now, tolerance: tolerance)
  }

  /// A flush sent frames: it used up one token, and a fan-out paced room's fan-out is under way.
  mutating func flushed(now: Double) {
    let tolerance = jitter
    _ = flushes?.take(now: now, tolerance: tolerance)
    fanout?.opened(at: now)
  }

  /// A tick at `now` (the transport's, in a later pass of the service loop than any flush before
  /// it, so after that flush's frames were written): a fan-out under way has ended.
  mutating func ticked(now: Double) {
    fanout?.closed(at: now)
  }

  /// How early a tick may come and still count as on time: a tenth of an interval, at most 2 ms.
  var jitter: Double { flushes.map { min(0.002, 0.1 / $0.rate) } ?? 0 }

  /// When the pacing next lets the room flush (seconds); nil when unpaced.
  func nextFlushAt(now: Double) -> Double? {
    guard let fanout else { return flushes?.nextTokenAt }
    return max(fanout.nextAt(now: now), flushes?.nextTokenAt ?? now)
  }

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
