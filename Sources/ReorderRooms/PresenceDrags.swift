/// A room's drags: the one in progress per session, the updates waiting for the next flush
/// (latest wins per session, in first-change order), and the last flushed update of each session
/// with the flush round it changed at.
///
/// Invariants: `current` holds only drags whose phase is `start`/`move` (in progress); `pending`
/// holds at most one update per session and `order` names each pending session once; `latest`
/// holds finished updates only until every recipient has had them (`forgetFinished`); every
/// version in `latest` is at most `tick`.
struct PresenceDrags: Sendable {
  /// Drags in progress, by session, with who drags.
  private(set) var current: [String: (peer: PeerInfo, drag: DragMessage)] = [:]
  private var pending: [String: (peer: PeerInfo, drag: DragMessage)] = [:]
  private var order: [String] = []
  /// Flush rounds that had drag updates, counted.
  private(set) var tick: UInt64 = 0
  /// The latest flushed update of each session and the round it changed at.
  private(set) var latest: [String: (version: UInt64, update: [UInt8], isFinal: Bool)] = [:]

  /// Records the latest drag of `peer`, replacing any unflushed one.
  /// - Complexity: O(1) amortized.
  mutating func update(_ peer: PeerInfo, _ drag: DragMessage) {
    if drag.phase.isFinal {
      current[peer.session] = nil
    } else {
      current[peer.session] = (peer, drag)
    }
    if pending.updateValue((peer, drag), forKey: peer.session) == nil { order.append(peer.session) }
  }

  /// `peer` left: a drag in progress becomes a `cancel`. Returns whether there was one.
  mutating func cancel(_ peer: PeerInfo) -> Bool {
    guard let drag = current[peer.session]?.drag else {
      // A start that was never flushed: drop it silently.
      if let unflushed = pending[peer.session], !unflushed.drag.phase.isFinal {
        pending[peer.session] = nil
        order.removeAll { $0 == peer.session }
      }
      return false
    }
    var cancelled = drag
    cancelled.phase = .cancel
    update(peer, cancelled)
    return true
  }

  /// Whether any update waits for the next flush.
  var hasPending: Bool { !order.isEmpty }

  /// Takes the pending updates, oldest change first: (session, encoded update, whether final).
  /// - Complexity: O(p) in the number of pending updates.
  mutating func takePending() -> [PresenceUpdate] {
    defer {
      pending.removeAll(keepingCapacity: true)
      order.removeAll(keepingCapacity: true)
    }
    return order.compactMap { session in
      guard let entry = pending[session] else { return nil }
      return (session, Presence.updateJSON(entry.peer, entry.drag).encoded(), entry.drag.phase.isFinal)
    }
  }

  /// A flush round with the pending updates: they become the latest of their sessions at the next
  /// `tick`. Returns the sessions that changed (nothing when none was pending).
  mutating func advance() -> [String] {
    guard hasPending else { return [] }
    tick += 1
    return takePending().map { update in
      latest[update.session] = (tick, update.update, update.isFinal)
      return update.session
    }
  }

  /// Finished drags every recipient has been sent (those up to round `oldest`) are forgotten.
  mutating func forgetFinished(upTo oldest: UInt64) {
    latest = latest.filter { !$0.value.isFinal || $0.value.version > oldest }
  }

  /// The `drags` frame of every session changed after round `since` (in session order), or nil.
  func frame(after since: UInt64, excluding session: String?) -> (bytes: [UInt8], priority: FramePriority)? {
    let updates = latest.filter { $0.value.version > since && $0.key != session }.sorted { $0.key < $1.key }
    guard !updates.isEmpty else { return nil }
    let priority: FramePriority = updates.contains { $0.value.isFinal } ? .data : .presence
    return (ServerMessage.drags(updates.map(\.value.update)), priority)
  }
}
