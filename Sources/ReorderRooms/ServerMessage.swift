/// Encoders for the frames the server sends (see docs/PROTOCOL.md). Each returns UTF-8 JSON bytes.
public enum ServerMessage {
  /// `applied {seq, id, by, op}`.
  public static func applied(seq: UInt64, id: String, by: String, op: JSONValue) -> [UInt8] {
    JSONValue.object([
      ("type", .string("applied")), ("seq", .number(Double(seq))), ("id", .string(id)), ("by", .string(by)),
      ("op", op),
    ]).encoded()
  }

  /// `rejected {id, code, message}`.
  public static func rejected(id: String, error: ProtocolError) -> [UInt8] {
    JSONValue.object([
      ("type", .string("rejected")), ("id", .string(id)), ("code", .string(error.code.rawValue)),
      ("message", .string(error.message)),
    ]).encoded()
  }

  /// `token_expiring {expires_in_s}`: the connection's token expires in that many seconds.
  public static func tokenExpiring(expiresIn: Double) -> [UInt8] {
    JSONValue.object([
      ("type", .string("token_expiring")), ("expires_in_s", .int(Int(max(0, expiresIn).rounded(.down)))),
    ])
    .encoded()
  }

  /// `refreshed {role, expires_in_s}`: a `refresh` was accepted.
  public static func refreshed(role: String, expiresIn: Double) -> [UInt8] {
    JSONValue.object([
      ("type", .string("refreshed")), ("role", .string(role)),
      ("expires_in_s", .int(Int(max(0, expiresIn).rounded(.down)))),
    ]).encoded()
  }

  /// `error {code, message}`.
  public static func error(_ error: ProtocolError) -> [UInt8] {
    JSONValue.object([
      ("type", .string("error")), ("code", .string(error.code.rawValue)), ("message", .string(error.message)),
    ]).encoded()
  }

  /// `peer {event, session, name, color}`.
  public static func peer(event: String, session: String, name: String, color: String) -> [UInt8] {
    JSONValue.object([
      ("type", .string("peer")), ("event", .string(event)), ("session", .string(session)), ("name", .string(name)),
      ("color", .string(color)),
    ]).encoded()
  }

  /// `peers {joined, left, count, presence_interval_ms?}`: a large room's coalesced joins and leaves.
  public static func peers(joined: [PeerInfo], left: [String], count: Int, intervalMilliseconds: Int?) -> [UInt8] {
    var members: [(key: String, value: JSONValue)] = [
      ("type", .string("peers")),
      (
        "joined",
        .array(
          joined.map {
            .object([("session", .string($0.session)), ("name", .string($0.name)), ("color", .string($0.color))])
          })
      ),
      ("left", .array(left.map { .string($0) })), ("count", .int(count)),
    ]
    if let intervalMilliseconds { members.append(("presence_interval_ms", .int(intervalMilliseconds))) }
    return JSONValue.object(members).encoded()
  }

  /// The members of a `welcome` after `peers`: how many other peers there are and the room's
  /// presence interval.
  public struct WelcomePresence: Sendable, Equatable {
    /// Exactly how many other peers the room has (`peers` may list fewer).
    public var peerCount: Int
    /// The room's presence interval in ms.
    public var intervalMilliseconds: Int
    /// `editor` or `viewer`.
    public var role: String
    /// Seconds until the connection's token expires (nil: no token).
    public var expiresIn: Int?
    /// The other sessions' custom presence states, `[{session, state}]` (`welcome.presence`).
    public var states: [JSONValue] = []

    /// The members.
    public init(peerCount: Int, intervalMilliseconds: Int, role: String = "editor", expiresIn: Int? = nil) {
      self.peerCount = peerCount
      self.intervalMilliseconds = intervalMilliseconds
      self.role = role
      self.expiresIn = expiresIn
    }

    var members: [(key: String, value: JSONValue)] {
      var out: [(key: String, value: JSONValue)] = [
        ("peer_count", .int(peerCount)), ("presence_interval_ms", .int(intervalMilliseconds)), ("role", .string(role)),
      ]
      if let expiresIn { out.append(("expires_in_s", .int(expiresIn))) }
      out.append(("presence", .array(states)))
      return out
    }
  }

  /// `welcome {v, session, epoch, seq, board, peers, peer_count, presence_interval_ms}`.
  public static func welcome(
    session: String, epoch: String, seq: UInt64, board: JSONValue, peers: [JSONValue], presence: WelcomePresence
  ) -> [UInt8] {
    welcome(session: session, epoch: epoch, seq: seq, encodedBoard: board.encoded(), peers: peers, presence: presence)
  }

  /// The same, with the board already encoded (a room keeps its board's encoding per seq, so a
  /// large board is encoded once for the joins at that seq, and off the rooms' thread at load).
  public static func welcome(
    session: String, epoch: String, seq: UInt64, encodedBoard: [UInt8], peers: [JSONValue],
    presence: WelcomePresence
  ) -> [UInt8] {
    var out = JSONValue.object([
      ("type", .string("welcome")), ("v", .int(Hello.protocolVersion)), ("session", .string(session)),
      ("epoch", .string(epoch)),
      ("seq", .number(Double(seq))),
    ]).encoded()
    out.removeLast()  // "}"
    out.reserveCapacity(out.count + encodedBoard.count + 256)
    out.append(contentsOf: ",\"board\":".utf8)
    out.append(contentsOf: encodedBoard)
    out.append(contentsOf: ",\"peers\":".utf8)
    JSONValue.array(peers).write(to: &out)
    for (key, value) in presence.members {
      out.append(contentsOf: ",\"\(key)\":".utf8)
      value.write(to: &out)
    }
    out.append(UInt8(ascii: "}"))
    return out
  }

  /// `welcome {v, session, epoch, seq, ops, peers, peer_count, presence_interval_ms}`, where `ops` are
  /// already-encoded `applied` frames.
  public static func welcome(
    session: String, epoch: String, seq: UInt64, ops: [[UInt8]], peers: [JSONValue], presence: WelcomePresence
  ) -> [UInt8] {
    var out = JSONValue.object([
      ("type", .string("welcome")), ("v", .int(Hello.protocolVersion)), ("session", .string(session)),
      ("epoch", .string(epoch)),
      ("seq", .number(Double(seq))),
    ]).encoded()
    out.removeLast()  // "}"
    out.append(contentsOf: ",\"ops\":[".utf8)
    for (i, op) in ops.enumerated() {
      if i > 0 { out.append(UInt8(ascii: ",")) }
      out.append(contentsOf: op)
    }
    out.append(contentsOf: "],\"peers\":".utf8)
    JSONValue.array(peers).write(to: &out)
    for (key, value) in presence.members {
      out.append(contentsOf: ",\"\(key)\":".utf8)
      value.write(to: &out)
    }
    out.append(UInt8(ascii: "}"))
    return out
  }

  /// `drags {updates}`, where `updates` are already-encoded update objects.
  /// `presence {updates:[{session, state}]}`: custom presence states that changed (`state` null
  /// for a session that left).
  public static func presenceStates(_ updates: [(session: String, state: JSONValue?)]) -> [UInt8] {
    JSONValue.object([
      ("type", .string("presence")),
      ("updates", .array(updates.map { PresenceStates.entry($0.session, $0.state) })),
    ]).encoded()
  }

  /// `broadcast {session, event}`: another member's event, relayed as sent.
  public static func broadcast(session: String, event: JSONValue) -> [UInt8] {
    JSONValue.object([("type", .string("broadcast")), ("session", .string(session)), ("event", event)]).encoded()
  }

  /// `drags {updates}`: the latest drag of each session that changed, already encoded.
  public static func drags(_ updates: [[UInt8]]) -> [UInt8] {
    var out = Array("{\"type\":\"drags\",\"updates\":[".utf8)
    for (i, update) in updates.enumerated() {
      if i > 0 { out.append(UInt8(ascii: ",")) }
      out.append(contentsOf: update)
    }
    out.append(contentsOf: "]}".utf8)
    return out
  }
}
