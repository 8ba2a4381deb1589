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

  /// The resolved op of `seq` from the frames in memory (pending or in the catch-up window).
  func resolvedOp(seq wanted: UInt64) -> JSONValue? {
    let frame =
      wanted > durableSeq ? durability.frame(seq: wanted) : appliedFrame(seq: wanted)
    return frame.flatMap { try? JSONValue.parse($0) }?["op"]
  }
}
