/// Who made an op, as its record keeps it and the history shows it (`GET …/history`): the
/// token's `sub` and `name` on a server with tokens, the hello's name without them, and
/// `via: "api"` for the HTTP API's writes (which have neither).
public struct OpActor: Sendable, Hashable {
  /// The token's subject; nil without tokens and for API writes.
  public var sub: String?
  /// The name the others saw: the token's `name` claim, else the hello's; nil for API writes.
  public var name: String?
  /// `"api"` for an op written through the HTTP API; nil for a websocket's.
  public var via: String?

  /// An actor.
  public init(sub: String? = nil, name: String? = nil, via: String? = nil) {
    self.sub = sub
    self.name = name
    self.via = via
  }

  /// The actor of the HTTP API's writes (`POST …/ops`, and the ops a `PUT` seeds).
  public static let api = OpActor(via: "api")

  /// `{"sub","name"}`, with `"via"` when it is set; absent values are `null`.
  public var json: JSONValue {
    var members: [(key: String, value: JSONValue)] = [
      ("sub", sub.map(JSONValue.string) ?? .null), ("name", name.map(JSONValue.string) ?? .null),
    ]
    if let via { members.append(("via", .string(via))) }
    return .object(members)
  }

  /// Most actors a webhook's `board.changed` lists (`merge(_:into:)` keeps the first ones).
  public static let maxListed = 100

  /// Adds the actors of `more` that `list` lacks, in order, up to `maxListed` in all.
  public static func merge(_ more: some Sequence<OpActor>, into list: inout [OpActor]) {
    for actor in more where list.count < maxListed && !list.contains(actor) { list.append(actor) }
  }

  /// The distinct actors of stored op records, in first-seen order (`maxListed` at most);
  /// records without one are skipped.
  public static func distinct(in entries: [LogEntry]) -> [OpActor] {
    var list: [OpActor] = []
    merge(entries.lazy.compactMap { try? OpRecord(payload: $0.payload).actor }, into: &list)
    return list
  }

  /// Reads `json`'s shape back; nil for anything that is not an object.
  public init?(json: JSONValue) {
    guard case .object = json else { return nil }
    self.init(sub: json["sub"]?.stringValue, name: json["name"]?.stringValue, via: json["via"]?.stringValue)
  }
}
