/// The server's open websockets, by lws handle and by id, and the ids handed out. Service thread
/// only. Ids are never reused while the server runs.
final class ConnectionTable {
  private var bySocket: [OpaquePointer: ServerConnection] = [:]
  private var byID: [ConnectionID: ServerConnection] = [:]
  private var lastID: UInt64 = 0

  /// A new id, one more than the last.
  func nextID() -> ConnectionID {
    lastID += 1
    return ConnectionID(rawValue: lastID)
  }

  /// Adds a connection (its handle and id must be new).
  func insert(_ connection: ServerConnection) {
    precondition(bySocket[connection.wsi] == nil && byID[connection.id] == nil, "connection added twice")
    bySocket[connection.wsi] = connection
    byID[connection.id] = connection
  }

  /// Removes and returns the connection of `wsi`.
  func remove(_ wsi: OpaquePointer) -> ServerConnection? {
    guard let connection = bySocket.removeValue(forKey: wsi) else { return nil }
    byID[connection.id] = nil
    return connection
  }

  /// The connection of an lws handle.
  subscript(wsi: OpaquePointer) -> ServerConnection? { bySocket[wsi] }

  /// The connection of an id.
  subscript(id: ConnectionID) -> ServerConnection? { byID[id] }

  /// Every connection, in no particular order.
  var all: Dictionary<OpaquePointer, ServerConnection>.Values { bySocket.values }

  /// How many are open.
  var count: Int { bySocket.count }

  /// Whether none is open.
  var isEmpty: Bool { bySocket.isEmpty }
}
