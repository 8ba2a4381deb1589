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

/// Latest-wins drag presence of one room: coalesced per session, flushed once per tick.
///
/// Invariants: `current` holds only drags whose phase is `start`/`move` (a drag in progress);
/// `pending` holds at most one update per session (the latest), in first-change order.
/// Nothing here is ever stored, and its size is bounded by the number of sessions.
public struct Presence: Sendable {
  /// Drags in progress, by session.
  public private(set) var current: [String: DragMessage] = [:]
  private var pending: [String: (peer: PeerInfo, drag: DragMessage)] = [:]
  private var order: [String] = []
  /// Paces the room's flushes (see `PresencePacing`): a flush that sends takes a token. Nil until
  /// `pace(_:connections:now:)`, when every flush may send.
  private(set) var flushes: TokenBucket?

  /// No drags.
  public init() {}

  /// Records the latest drag of `peer`, replacing any unflushed one.
  /// - Complexity: O(1) amortized.
  public mutating func update(_ peer: PeerInfo, _ drag: DragMessage) {
    if drag.phase.isFinal {
      current[peer.session] = nil
    } else {
      current[peer.session] = drag
    }
    if pending.updateValue((peer, drag), forKey: peer.session) == nil { order.append(peer.session) }
  }

  /// `peer` left: a drag in progress becomes a `cancel` for everyone. Returns whether there was one.
  @discardableResult
  public mutating func cancel(_ peer: PeerInfo) -> Bool {
    guard let drag = current[peer.session] else {
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

  /// Applies `pacing` for a server with `connections` open: the flush rate and burst follow it.
  mutating func pace(_ pacing: PresencePacing, connections: Int, now: Double) {
    let rate = 1 / pacing.interval(connections: connections)
    let burst = Double(pacing.burst)
    if flushes == nil {
      flushes = TokenBucket(rate: rate, burst: burst, now: now)
    } else {
      flushes!.rate = rate
      flushes!.burst = burst
    }
  }

  /// Whether the pacing lets the room flush at `now` (always when unpaced). A tenth of an
  /// interval (at most 2 ms) early counts as on time, for timer jitter.
  mutating func mayFlush(now: Double) -> Bool {
    guard flushes != nil else { return true }
    let tolerance = jitter
    return flushes!.hasToken(now: now, tolerance: tolerance)
  }

  /// A flush sent frames: it used up one token.
  mutating func flushed(now: Double) {
    let tolerance = jitter
    _ = flushes?.take(now: now, tolerance: tolerance)
  }

  /// How early a tick may come and still count as on time: a tenth of an interval, at most 2 ms.
  private var jitter: Double { flushes.map { min(0.002, 0.1 / $0.rate) } ?? 0 }

  /// When the pacing next lets the room flush (seconds); nil when unpaced.
  var nextFlushAt: Double? { flushes?.nextTokenAt }

  /// Whether any update waits for the next tick.
  public var hasPending: Bool { !order.isEmpty }

  /// Takes the pending updates, oldest change first: (session, encoded update, whether final).
  /// - Complexity: O(p) in the number of pending updates.
  public mutating func flush() -> [PresenceUpdate] {
    defer {
      pending.removeAll(keepingCapacity: true)
      order.removeAll(keepingCapacity: true)
    }
    return order.compactMap { session in
      guard let entry = pending[session] else { return nil }
      return (session, Presence.updateJSON(entry.peer, entry.drag).encoded(), entry.drag.phase.isFinal)
    }
  }

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
