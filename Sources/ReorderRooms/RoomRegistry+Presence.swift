extension RoomRegistry {
  /// The current shortest time between two presence flushes of a room (`presencePacing` applied
  /// to the open connections).
  public var presenceInterval: Double { presencePacing.interval(connections: connections.count) }

  /// Leading-edge presence: after a frame from `connection`, flushes its room's presence at once if
  /// it has a pending drag and the pacing allows a flush (see `PresencePacing`). Otherwise the
  /// pending drags wait, and `due` says when (seconds, the registry's clock) the room may flush
  /// next: the caller asks for a `tick` then. A room within its rate relays a drag without
  /// waiting; one above it batches every drag of an interval into one `drags` frame per member
  /// (see `Room.flushPresence(now:busy:)`). `busy` connections are held back as at a tick.
  ///
  /// Call it after `received`.
  /// - Complexity: O(1) when nothing is due; a flush costs as at a tick.
  public func flushPresenceEarly(
    after connection: ConnectionHandle, now: Double,
    busy: (ConnectionHandle) -> Bool = { _ in false }
  ) -> (actions: [RoomAction], due: Double?) {
    guard let name = connections[connection]?.room, rooms[name] != nil else { return ([], nil) }
    rooms[name]!.presence.pace(presencePacing, connections: connections.count, now: now)
    guard rooms[name]!.presence.hasPending else { return ([], nil) }
    guard rooms[name]!.presence.mayFlush(now: now) else { return ([], rooms[name]!.presence.nextFlushAt) }
    return (rooms[name]!.flushPresence(now: now, busy: busy), nil)
  }
}
