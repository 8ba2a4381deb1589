/// The members of a room in join order, with O(1) join and leave: a doubly linked list over the
/// connection handles. The bounded `peers` of a welcome walks its first entries.
struct Roster: Sendable {
  private var links: [ConnectionHandle: (previous: ConnectionHandle?, next: ConnectionHandle?)] = [:]
  private var head: ConnectionHandle?
  private var tail: ConnectionHandle?

  /// Number of connections on the roster.
  var count: Int { links.count }

  /// Adds `connection` at the end (no effect if it is there).
  /// - Complexity: O(1) amortized.
  mutating func append(_ connection: ConnectionHandle) {
    guard links[connection] == nil else { return }
    links[connection] = (tail, nil)
    if let tail { links[tail]!.next = connection } else { head = connection }
    tail = connection
  }

  /// Removes `connection` (no effect if it is not there).
  /// - Complexity: O(1) amortized.
  mutating func remove(_ connection: ConnectionHandle) {
    guard let link = links.removeValue(forKey: connection) else { return }
    if let previous = link.previous { links[previous]!.next = link.next } else { head = link.next }
    if let next = link.next { links[next]!.previous = link.previous } else { tail = link.previous }
  }

  /// Calls `body` with the connections in join order until it returns false.
  /// - Complexity: O(k) for the k connections visited.
  func forEach(while body: (ConnectionHandle) -> Bool) {
    var current = head
    while let connection = current, body(connection) { current = links[connection]!.next }
  }
}
