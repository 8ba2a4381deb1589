extension RoomStatistics {
  /// Every key `messagesReceived` counts under: the four frame types a client sends, then
  /// `invalid`, `binary` and `dropped`.
  public static let messageTypes = ["hello", "op", "drag", "refresh", "invalid", "binary", "dropped"]
}

extension ErrorCode {
  /// The codes a `rejected` frame carries (docs/PROTOCOL.md, "Rejection codes": the rows whose
  /// frame is `rejected`), the keys `RoomStatistics.opsRejected` counts under.
  public static let rejectionCodes: [ErrorCode] = [
    .missingField, .wrongType, .invalidValue, .rateLimited, .readOnly, .unknownKind, .unknownItem, .unknownList,
    .unknownAssignment, .duplicateItem, .duplicateList, .invalidAnchor, .invalidField, .itemLimit, .listLimit,
    .unavailable, .storageFull,
  ]
}
