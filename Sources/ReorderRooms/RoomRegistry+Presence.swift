extension RoomRegistry {
  /// Leading-edge presence: after a frame from `connection`, flushes its room's presence at once if
  /// it has a pending drag and its last flush is at least `interval` seconds old; later changes wait
  /// for the tick as before. An idle room relays a drag without waiting for the tick, a busy one still
  /// batches: every member gets at most one `drags` frame per `interval` (ticks included, see
  /// `Room.flushPresence(now:busy:)`). `busy` connections are held back as at a tick.
  ///
  /// Call it after `received`; `interval` is the tick interval in seconds.
  /// - Complexity: O(1) when nothing is due; a flush costs as at a tick.
  public func flushPresenceEarly(
    after connection: ConnectionHandle, now: Double, interval: Double,
    busy: (ConnectionHandle) -> Bool = { _ in false }
  ) -> [RoomAction] {
    guard interval > 0, let name = connections[connection]?.room, rooms[name] != nil else { return [] }
    rooms[name]!.presence.minimumInterval = interval
    guard rooms[name]!.presence.hasPending, now - rooms[name]!.presence.lastFlushAt >= interval else { return [] }
    return rooms[name]!.flushPresence(now: now, busy: busy)
  }
}
