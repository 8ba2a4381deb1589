/// The content of `PUT /api/v1/boards/{room}` (docs/API.md): lists with their items, then
/// assignments, as the ops that build them, validated like websocket ops.
///
/// `{"lists":[{"id","title","layout","items"?:[{"id","fields"?}]}],"assignments"?:[{"item","target"}]}`
/// becomes `createList` per list (in order, each after the previous), `insert` per item (in order,
/// each after the previous in its list) and `assign` per assignment: the same decoding
/// (`Intent.decode`) and the same checks (`Room.checkLimits`, the board's own) as an `op` frame, so
/// a board an app creates is one a client could have built.
public struct BoardContent: Sendable, Equatable {
  /// One op of the content and where it came from (`lists[2].items[0]`), for the error message.
  public struct Step: Sendable, Equatable {
    /// Where in the body the op came from.
    public var path: String
    /// The op.
    public var intent: Intent
  }

  /// The ops, in the order they apply.
  public var steps: [Step]

  /// Why a body is not a board: where, and the protocol error (its code and message).
  public struct Refusal: Error, Equatable, Sendable {
    /// Where in the body (`lists[0].items[3]`, `lists`, or `""` for the body itself).
    public var path: String
    /// What is wrong.
    public var error: ProtocolError

    /// `path: message`, for a problem's `detail`.
    public var detail: String { path.isEmpty ? error.message : "\(path): \(error.message)" }
  }

  /// Decodes a body. - Throws: `Refusal` naming the first thing that is wrong.
  public init(_ body: JSONValue) throws(Refusal) {
    guard case .object = body else {
      throw Refusal(path: "", error: ProtocolError(.badMessage, "the body must be a JSON object"))
    }
    let lists = try Self.array(body, "lists", required: true, at: "")
    // Whether a board exists is whether it has stored ops (on one node and in Redis): a board
    // without a list would have none, so it could not be read, listed or told from no board.
    guard !lists.isEmpty else {
      throw Refusal(path: "lists", error: ProtocolError.invalid("lists", "must name at least one list"))
    }
    var steps: [Step] = []
    var previousList: String?
    for (l, list) in lists.enumerated() {
      let at = "lists[\(l)]"
      let id = try Self.field(at) { () throws(ProtocolError) in try Field.id(list, "id") }
      var op: [(key: String, value: JSONValue)] = [("kind", .string("createList")), ("list", .string(id))]
      op.append(("title", list["title"] ?? .null))
      op.append(("layout", list["layout"] ?? .null))
      if let previousList { op.append(("after", .string(previousList))) }
      steps.append(Step(path: at, intent: try Self.decode(.object(op), at: at)))
      previousList = id
      var previousItem: String?
      for (i, item) in try Self.array(list, "items", required: false, at: at).enumerated() {
        let itemAt = "\(at).items[\(i)]"
        let itemID = try Self.field(itemAt) { () throws(ProtocolError) in try Field.id(item, "id") }
        var insert: [(key: String, value: JSONValue)] = [
          ("kind", .string("insert")), ("list", .string(id)), ("item", .string(itemID)),
          ("fields", item["fields"] ?? .object([])),
        ]
        if let previousItem { insert.append(("after", .string(previousItem))) }
        steps.append(Step(path: itemAt, intent: try Self.decode(.object(insert), at: itemAt)))
        previousItem = itemID
      }
    }
    for (a, assignment) in try Self.array(body, "assignments", required: false, at: "").enumerated() {
      let at = "assignments[\(a)]"
      let op: [(key: String, value: JSONValue)] = [
        ("kind", .string("assign")), ("item", assignment["item"] ?? .null), ("target", assignment["target"] ?? .null),
      ]
      steps.append(Step(path: at, intent: try Self.decode(.object(op), at: at)))
    }
    self.steps = steps
  }

  /// The array member `name` of `v` (the value at `at`); a refusal points at the member itself.
  private static func array(_ v: JSONValue, _ name: String, required: Bool, at: String) throws(Refusal) -> [JSONValue] {
    let member = at.isEmpty ? name : "\(at).\(name)"
    switch v[name] {
    case .array(let elements)?: return elements
    case nil, .null?:
      guard required else { return [] }
      throw Refusal(path: member, error: ProtocolError.missing(name))
    case let other?:
      throw Refusal(path: member, error: ProtocolError.wrongType(name, expected: "an array", got: other))
    }
  }

  private static func field<T>(_ at: String, _ body: () throws(ProtocolError) -> T) throws(Refusal) -> T {
    do { return try body() } catch { throw Refusal(path: at, error: error) }
  }

  private static func decode(_ op: JSONValue, at: String) throws(Refusal) -> Intent {
    try field(at) { () throws(ProtocolError) in try Intent.decode(op) }
  }
}
