/// What became of one op of `POST /api/v1/boards/{room}/ops`.
public enum APIOpResult: Sendable, Equatable {
  /// Applied at `seq` (now, or earlier under the same id); `op` is the resolved op, nil when it
  /// is not among the ops kept in memory (the caller reads it from the log).
  case applied(id: String, seq: UInt64, op: JSONValue?)
  /// Refused; the board did not change.
  case rejected(id: String, error: ProtocolError)

  /// The seq it waits for, if applied.
  public var seq: UInt64? {
    if case .applied(_, let seq, _) = self { return seq }
    return nil
  }

  /// `{"id","type":"applied","seq","op"}` or `{"id","type":"rejected","code","message"}`.
  public var json: JSONValue {
    switch self {
    case .applied(let id, let seq, let op):
      return .object([
        ("id", .string(id)), ("type", .string("applied")), ("seq", .number(Double(seq))), ("op", op ?? .null),
      ])
    case .rejected(let id, let error):
      return .object([
        ("id", .string(id)), ("type", .string("rejected")), ("code", .string(error.code.rawValue)),
        ("message", .string(error.message)),
      ])
    }
  }
}

extension Room {
  /// The client every API op is made as: op ids are unique per client, so an id the API sent
  /// again is recognised however long ago (within `--remembered-op-ids`).
  static let apiClient = "api"

  /// An op from the HTTP API, as `by: "api"`: applied now (its `applied` goes to the members once
  /// durable, like a member's op), recognised as a re-send of the same id, or rejected.
  mutating func performAPI(id: String, intent: Result<Intent, ProtocolError>, at: Int64) -> (APIOpResult, [RoomAction])
  {
    let key = OpRecord.key(client: Room.apiClient, id: id)
    if let known = opIDs[key] {
      counters.opsRepeated += 1
      return (.applied(id: id, seq: known, op: resolvedOp(seq: known)), [])
    }
    if rebuilding {
      counters.opsRejected[ErrorCode.storageFull.rawValue, default: 0] += 1
      return (.rejected(id: id, error: Room.storageFullError), [])
    }
    do {
      let intent = try intent.get()
      try checkLimits(intent)
      let (logged, resolved) = try board.perform(intent, ids: GeneratedIDs(seq: seq + 1))
      seq += 1
      let record = self.record(
        id: id, client: Room.apiClient, by: "api", resolved: resolved, logged: logged, seq: seq, actor: .api, at: at)
      pending.append((seq, record.applied(seq: seq)))
      remember(key: key, seq: seq)
      var actions: [RoomAction] = [.persist(room: name, ops: [LogEntry(seq: seq, payload: record.encoded())])]
      opsSinceSnapshot += 1
      counters.opsApplied += 1
      if snapshotDue { actions.append(takeSnapshot()) }
      return (.applied(id: id, seq: seq, op: resolved), actions)
    } catch {
      counters.opsRejected[error.code.rawValue, default: 0] += 1
      return (.rejected(id: id, error: error), [])
    }
  }

  /// The resolved op of `seq` from the frames in memory (pending or in the catch-up window).
  func resolvedOp(seq wanted: UInt64) -> JSONValue? {
    let frame =
      wanted > durableSeq ? pending.first(where: { $0.seq == wanted })?.frame : appliedFrame(seq: wanted)
    return frame.flatMap { try? JSONValue.parse($0) }?["op"]
  }
}
