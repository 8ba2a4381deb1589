/// The custom presence states of a room's sessions (`presence {state}` from a client): the latest
/// state of each session, and the sessions whose state changed since the last flush. Nothing
/// here is ever stored.
///
/// Invariants: `changed` lists each session at most once, in first-change order, and exactly the
/// sessions of `changes`; a session in `states` has a non-null object state; a change to `nil`
/// (the session left) is kept only for a session that had a state.
public struct PresenceStates: Sendable {
  /// The latest state of each session that set one.
  public private(set) var states: [String: JSONValue] = [:]
  /// The latest change of each session since the last flush (`nil`: its state left with it).
  private var changes: [String: JSONValue?] = [:]
  private var changed: [String] = []

  /// No states.
  public init() {}

  /// Whether any change waits for the next flush.
  public var hasPending: Bool { !changed.isEmpty }

  /// `session` set `state` (latest wins; it goes out at the next flush).
  /// - Complexity: O(1) amortized.
  public mutating func set(_ session: String, _ state: JSONValue) {
    states[session] = state
    record(session, state)
  }

  /// `session` left: its state, if it had one, leaves with it (a `null` state at the next flush).
  /// - Complexity: O(1) amortized, O(p) when it had an unflushed change only.
  public mutating func remove(_ session: String) {
    guard states.removeValue(forKey: session) != nil else { return }
    record(session, nil)
  }

  private mutating func record(_ session: String, _ state: JSONValue?) {
    if changes.updateValue(state, forKey: session) == nil { changed.append(session) }
  }

  /// Takes the changes since the last flush, oldest first: (session, state or nil when it left).
  /// - Complexity: O(p) in the number of changed sessions.
  public mutating func takePending() -> [(session: String, state: JSONValue?)] {
    defer {
      changes.removeAll(keepingCapacity: true)
      changed.removeAll(keepingCapacity: true)
    }
    return changed.map { ($0, changes[$0] ?? nil) }
  }

  /// `[{session, state}]` of every state but `excluding`'s, in session order (a welcome's
  /// `presence`).
  public func snapshot(excluding session: String?) -> [JSONValue] {
    states.keys.sorted().compactMap { key in
      key == session ? nil : PresenceStates.entry(key, states[key])
    }
  }

  /// `{session, state}`, `state` `null` for a session that left.
  static func entry(_ session: String, _ state: JSONValue?) -> JSONValue {
    .object([("session", .string(session)), ("state", state ?? .null)])
  }
}
