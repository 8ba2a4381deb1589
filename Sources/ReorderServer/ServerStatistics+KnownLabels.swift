import ReorderAuth
import ReorderBasics
import ReorderRooms

extension ServerStatistics {
  /// These statistics with a 0 for every label value known in advance that has counted nothing
  /// yet, so that `/metrics` lists each series from the start (a rate over a series that appears
  /// at its first event misses that event): close codes (`CloseCode.counted`), frame types
  /// (`RoomStatistics.messageTypes`), rejection codes (`ErrorCode.rejectionCodes`) and token
  /// refusal reasons (`TokenError.Reason`). Counts already there stay as they are.
  func withKnownLabels() -> ServerStatistics {
    var s = self
    for code in CloseCode.counted { s.transport.disconnects[code, default: 0] += 0 }
    for type in RoomStatistics.messageTypes { s.rooms.messagesReceived[type, default: 0] += 0 }
    for code in ErrorCode.rejectionCodes { s.rooms.opsRejected[code.rawValue, default: 0] += 0 }
    for reason in TokenError.Reason.allCases { s.rooms.authFailures[reason.rawValue, default: 0] += 0 }
    return s
  }
}
