/// One node's presence changes of a room since its last publish (cluster mode), as published on
/// the room's channel (`reorder:{R}:presence`, after `<node id>\n`), compact JSON:
///
/// ```json
/// {"joined":[{"session":"s1","name":"Ann","color":"#e11d48"}],
///  "left":["s2"],
///  "drags":[{"session":"s1","name":"Ann","color":"#e11d48","phase":"move","item":"paris",
///            "list":"cities","over":"london","index":2,"x":0.5,"y":0.25,"t":17}],
///  "states":[{"session":"s1","state":{"list":"cities"}}],
///  "broadcasts":[{"session":"s1","event":{"emoji":"🎉"}}]}
/// ```
///
/// `joined` and `left` are this node's visible sessions that joined or left; `drags` the latest
/// drag of each session that changed (the members of a `drags` frame entry); `states` the latest
/// custom presence state of each session that changed; `broadcasts` this node's broadcasts in
/// order. A receiver applies `joined`, then `drags` and `states`, then `broadcasts`, then `left`
/// (a session that joined and left between two publishes is in neither). Members may be absent
/// when empty.
public struct PresenceMessage: Sendable, Equatable {
  /// One session's latest drag.
  public struct Drag: Sendable, Equatable {
    /// Who drags.
    public var peer: PeerInfo
    /// The drag.
    public var drag: DragMessage
  }

  /// One session's custom presence state or broadcast event.
  public struct Entry: Sendable, Equatable {
    /// Whose.
    public var session: String
    /// The state or event (a JSON object).
    public var value: JSONValue
  }

  /// Sessions that joined, in join order.
  public var joined: [PeerInfo] = []
  /// Sessions that left.
  public var left: [String] = []
  /// The latest drag of each session that changed, in first-change order.
  public var drags: [Drag] = []
  /// The latest custom presence state of each session that changed, in first-change order.
  public var states: [Entry] = []
  /// Broadcasts of this node's sessions, in the order sent.
  public var broadcasts: [Entry] = []

  /// Nothing to publish.
  public init() {}

  /// Whether there is nothing to publish.
  public var isEmpty: Bool {
    joined.isEmpty && left.isEmpty && drags.isEmpty && states.isEmpty && broadcasts.isEmpty
  }

  /// Whether it should go at once rather than at the room's presence pace (joins, leaves and
  /// broadcasts are not coalesced).
  var isUrgent: Bool { !joined.isEmpty || !left.isEmpty || !broadcasts.isEmpty }

  /// A session of this node joined.
  mutating func join(_ peer: PeerInfo) { joined.append(peer) }

  /// A session of this node left: a join or drag of it not yet published goes with it.
  mutating func leave(_ session: String) {
    let count = joined.count
    joined.removeAll { $0.session == session }
    drags.removeAll { $0.peer.session == session }
    states.removeAll { $0.session == session }
    if joined.count == count { left.append(session) }
  }

  /// A session of this node dragged (latest wins).
  mutating func drag(_ peer: PeerInfo, _ drag: DragMessage) {
    if let index = drags.firstIndex(where: { $0.peer.session == peer.session }) {
      drags[index].drag = drag
    } else {
      drags.append(Drag(peer: peer, drag: drag))
    }
  }

  /// A session of this node set its custom presence state (latest wins).
  mutating func state(_ session: String, _ state: JSONValue) {
    if let index = states.firstIndex(where: { $0.session == session }) {
      states[index].value = state
    } else {
      states.append(Entry(session: session, value: state))
    }
  }

  /// A session of this node broadcast an event.
  mutating func broadcast(_ session: String, _ event: JSONValue) {
    broadcasts.append(Entry(session: session, value: event))
  }

  /// The payload to publish.
  public func encoded() -> [UInt8] {
    var members: [(key: String, value: JSONValue)] = []
    if !joined.isEmpty { members.append(("joined", .array(joined.map(PresenceMessage.peerJSON)))) }
    if !left.isEmpty { members.append(("left", .array(left.map { .string($0) }))) }
    if !drags.isEmpty { members.append(("drags", .array(drags.map { Presence.updateJSON($0.peer, $0.drag) }))) }
    if !states.isEmpty {
      members.append(("states", .array(states.map { PresenceStates.entry($0.session, $0.value) })))
    }
    if !broadcasts.isEmpty {
      members.append(
        ("broadcasts", .array(broadcasts.map { .object([("session", .string($0.session)), ("event", $0.value)]) })))
    }
    return JSONValue.object(members).encoded()
  }

  /// Reads a published payload.
  /// - Throws: `BoardDataError` when it is not one (a node of another version, or garbage).
  public init(payload: [UInt8]) throws {
    let value = try JSONValue.parse(payload)
    guard value.objectMembers != nil else { throw BoardDataError("presence message: not an object") }
    for peer in try PresenceMessage.array(value, "joined") { joined.append(try PresenceMessage.peer(peer)) }
    for session in try PresenceMessage.array(value, "left") {
      guard let text = session.stringValue else { throw BoardDataError("presence message: bad left") }
      left.append(text)
    }
    for entry in try PresenceMessage.array(value, "drags") {
      let peer = try PresenceMessage.peer(entry)
      do {
        drags.append(Drag(peer: peer, drag: try ClientMessage.decodeDrag(entry)))
      } catch {
        throw BoardDataError("presence message: bad drag: \(error.message)")
      }
    }
    for entry in try PresenceMessage.array(value, "states") {
      guard let session = entry["session"]?.stringValue, let state = entry["state"], case .object = state else {
        throw BoardDataError("presence message: a state needs a session and an object")
      }
      states.append(Entry(session: session, value: state))
    }
    for entry in try PresenceMessage.array(value, "broadcasts") {
      guard let session = entry["session"]?.stringValue, let event = entry["event"], case .object = event else {
        throw BoardDataError("presence message: a broadcast needs a session and an object")
      }
      broadcasts.append(Entry(session: session, value: event))
    }
  }

  /// A roster entry's value (`reorder:{R}:roster` hash, session → this JSON): the session's
  /// node and peer, `{"node":…,"session":…,"name":…,"color":…}`.
  public static func rosterEntry(node: String, peer: PeerInfo) -> [UInt8] {
    var members: [(key: String, value: JSONValue)] = [("node", .string(node))]
    if case .object(let rest) = peerJSON(peer) { members += rest }
    return JSONValue.object(members).encoded()
  }

  /// Reads a roster entry's value: its node and peer, or nil when it is not one.
  public static func rosterEntry(_ bytes: [UInt8]) -> (node: String, peer: PeerInfo)? {
    guard let value = try? JSONValue.parse(bytes), let node = value["node"]?.stringValue,
      let peer = try? PresenceMessage.peer(value)
    else { return nil }
    return (node, peer)
  }

  static func peerJSON(_ peer: PeerInfo) -> JSONValue {
    .object([("session", .string(peer.session)), ("name", .string(peer.name)), ("color", .string(peer.color))])
  }

  static func peer(_ value: JSONValue) throws -> PeerInfo {
    guard let session = value["session"]?.stringValue, let name = value["name"]?.stringValue,
      let color = value["color"]?.stringValue
    else { throw BoardDataError("presence message: a peer needs session, name and color") }
    return PeerInfo(session: session, name: name, color: color)
  }

  static func array(_ value: JSONValue, _ key: String) throws -> [JSONValue] {
    switch value[key] {
    case nil, .null?: return []
    case .array(let items)?: return items
    default: throw BoardDataError("presence message: '\(key)' must be an array")
    }
  }
}
