import ReorderAPI
import ReorderRooms

/// The websockets' `history` requests (docs/PROTOCOL.md): each connection's answered in order, a
/// few at a time.
extension RoomsDriver {
  /// Most `history` requests of one connection waiting for their answers; more are refused with
  /// `rate_limited` (each rebuilds a board off the service thread: one client does not queue
  /// the store's reads of everyone else's rooms behind its own).
  static let maxWaitingHistoryReads = 4

  /// The websocket's `history` request of a member: its frame, sent to it alone, after the
  /// answers of the requests before it. Service thread.
  func sendHistory(_ read: HistoryRead) {
    guard historyReads.lazy.filter({ $0.connection == read.connection }).count < Self.maxWaitingHistoryReads else {
      let error = ProtocolError(
        .rateLimited, "more than \(Self.maxWaitingHistoryReads) history requests wait for their answers; wait for them")
      return perform([.send(read.connection, ServerMessage.error(error), .data)])
    }
    historyReads.append(read)
    if historyReads.count == 1 { runHistory(read) }
  }

  private func runHistory(_ read: HistoryRead) {
    read.run(on: storage, rfc3339: APIHandlers.rfc3339) { [weak self] frame in
      self?.transport?.post { [weak self] in
        guard let self else { return }
        perform([.send(read.connection, frame, .data)])
        historyReads.removeFirst()
        if let next = historyReads.first { runHistory(next) }
      }
    }
  }
}
