extension RoomRegistry {
  /// The current shortest time between two presence flushes of a room (`presencePacing` applied
  /// to the open connections).
  public var presenceInterval: Double { presencePacing.interval(connections: connections.count) }

  /// Leading-edge presence: after a frame from `connection`, flushes its room's presence at once if
  /// it has a pending drag and its last flush is at least `presenceInterval` old. Otherwise the
  /// pending drags wait, and `due` says when (seconds, the registry's clock) the room may flush
  /// next: the caller asks for a `tick` then. An idle room relays a drag without waiting, a busy one
  /// batches: every member gets at most one `drags` frame per interval (see
  /// `Room.flushPresence(now:busy:)`). `busy` connections are held back as at a tick.
  ///
  /// Call it after `received`.
  /// - Complexity: O(1) when nothing is due; a flush costs as at a tick.
  public func flushPresenceEarly(
    after connection: ConnectionHandle, now: Double,
    busy: (ConnectionHandle) -> Bool = { _ in false }
  ) -> (actions: [RoomAction], due: Double?) {
    guard let name = connections[connection]?.room, rooms[name] != nil else { return ([], nil) }
    let interval = presenceInterval
    rooms[name]!.presence.minimumInterval = interval
    guard rooms[name]!.presence.hasPending else { return ([], nil) }
    let due = rooms[name]!.presence.lastFlushAt + interval
    guard now >= due else { return ([], due) }
    return (rooms[name]!.flushPresence(now: now, busy: busy), nil)
  }
}
