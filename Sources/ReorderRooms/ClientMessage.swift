/// A message a client may send (see docs/PROTOCOL.md).
public enum ClientMessage: Sendable, Equatable {
  case hello(Hello)
  case op(OpRequest)
  case drag(DragMessage)
  /// A new token for the connection (`refresh {token}`).
  case refresh(token: String)
  /// The sender's custom presence state (`presence {state}`): latest wins, relayed to the others.
  case presence(state: JSONValue)
  /// An event for the room's other members (`broadcast {event}`): relayed once, never stored.
  case broadcast(event: JSONValue)
  /// A page of the room's history (`history {before?, limit?}`), answered to the sender alone.
  case history(HistoryRequest)
}

/// `history`: the ops before `before` (the newest without it), at most `limit`, with the board
/// before the oldest of them.
public struct HistoryRequest: Sendable, Equatable {
  /// Most entries one `history` frame holds (and the default is a quarter of it).
  public static let maxLimit = 200
  /// Ops with a seq below this; nil: the newest.
  public var before: UInt64?
  /// At most this many (1…`maxLimit`, default 50).
  public var limit: Int

  /// A request.
  public init(before: UInt64? = nil, limit: Int = 50) {
    self.before = before
    self.limit = limit
  }
}

/// `hello`: the first message on a connection; joins the room.
public struct Hello: Sendable, Equatable {
  /// The protocol version this server speaks (`hello.v`, `welcome.v`; docs/PROTOCOL.md, "Versions").
  public static let protocolVersion = 1

  /// Must equal the room in the websocket path.
  public var room: String
  /// A stable client id kept across reconnects; op ids are unique per client.
  public var client: String
  /// Display name shown to the others.
  public var name: String
  /// Display colour (CSS colour text such as `#e91e63`).
  public var color: String
  /// The last `seq` this client has seen; asks for a catch-up instead of a full board.
  public var since: UInt64?
  /// The room's `epoch` from this client's last welcome: a catch-up is served only if it matches
  /// (the room's history was not replaced, e.g. by a server on a fresh data directory).
  public var epoch: String?
  /// The room token, when the server checks tokens (`hello.token`; see docs/AUTH.md).
  public var token: String?

  /// A hello with every field.
  public init(
    room: String, client: String, name: String, color: String, since: UInt64? = nil, epoch: String? = nil,
    token: String? = nil
  ) {
    self.room = room
    self.client = client
    self.name = name
    self.color = color
    self.since = since
    self.epoch = epoch
    self.token = token
  }
}

/// `op`: an intent with the client's op id.
public struct OpRequest: Sendable, Equatable {
  /// Unique per client; re-sending the same id never applies twice.
  public var id: String
  /// What to do.
  public var intent: Intent
  /// When the server received it (milliseconds since 1970-01-01 UTC, from the registry's
  /// `wallClock`): the time its record keeps. 0 until the registry stamps it.
  public var at: Int64 = 0

  /// An op request.
  public init(id: String, intent: Intent, at: Int64 = 0) {
    self.id = id
    self.intent = intent
    self.at = at
  }
}

/// A field value of an item (`title`, `price`, …).
public enum WireFieldValue: Sendable, Equatable, Hashable {
  case string(String)
  case number(Double)
  case bool(Bool)

  /// The JSON form.
  public var json: JSONValue {
    switch self {
    case .string(let s): return .string(s)
    case .number(let n): return .number(n)
    case .bool(let b): return .bool(b)
    }
  }
}

/// What a client wants done to the board. Ids are the wire strings; `after`/`before` absent mean the
/// start / the end.
public enum Intent: Sendable, Equatable {
  case insert(list: String, after: String?, before: String?, fields: [String: WireFieldValue], item: String?)
  case move(item: String, list: String, after: String?, before: String?)
  case delete(item: String)
  case restore(item: String)
  case set(item: String, field: String, value: WireFieldValue)
  case assign(item: String, target: String)
  case unassign(assignment: String)
  case createList(list: String?, title: String, layout: String, after: String?)
  case moveList(list: String, after: String?)
  case deleteList(list: String)

  /// The `kind` on the wire.
  public var kind: String {
    switch self {
    case .insert: return "insert"
    case .move: return "move"
    case .delete: return "delete"
    case .restore: return "restore"
    case .set: return "set"
    case .assign: return "assign"
    case .unassign: return "unassign"
    case .createList: return "createList"
    case .moveList: return "moveList"
    case .deleteList: return "deleteList"
    }
  }
}

/// The phase of a drag.
public enum DragPhase: String, Sendable, Equatable {
  case start, move, end, cancel

  /// `end` and `cancel` finish a drag.
  public var isFinal: Bool { self == .end || self == .cancel }
}

/// `drag`: the sender's current drag (ephemeral presence; coalesced, never stored).
public struct DragMessage: Sendable, Equatable {
  /// `start`, `move`, `end` or `cancel`.
  public var phase: DragPhase
  /// The dragged item.
  public var item: String
  /// The list under the pointer.
  public var list: String?
  /// The item under the pointer.
  public var over: String?
  /// The prospective index in `list`.
  public var index: Int?
  /// The pointer relative to the list's box (0…1 inside it).
  public var x: Double?
  /// See `x`.
  public var y: Double?
  /// Opaque, passed through (a number or a short string).
  public var t: JSONValue?

  /// A drag update.
  public init(
    phase: DragPhase, item: String, list: String? = nil, over: String? = nil, index: Int? = nil,
    x: Double? = nil, y: Double? = nil, t: JSONValue? = nil
  ) {
    self.phase = phase
    self.item = item
    self.list = list
    self.over = over
    self.index = index
    self.x = x
    self.y = y
    self.t = t
  }
}
