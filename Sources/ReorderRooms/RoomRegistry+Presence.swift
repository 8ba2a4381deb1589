extension RoomRegistry {
  /// The current shortest time between two presence flushes of a room (`presencePacing` applied
  /// to the open connections).
  public var presenceInterval: Double { presencePacing.interval(connections: connections.count) }

  /// How long a member held back as busy waits before a flush tries it again: the longest
  /// presence interval (`1 / presencePacing.minHz`).
  var busyRetry: Double { 1 / presencePacing.minHz }

  /// Leading-edge presence: after a frame from `connection`, flushes its room's presence at once if
  /// it has a pending drag and the pacing allows a flush (see `PresencePacing`). `due` says when
  /// (seconds, the registry's clock) the room needs a flush next, if it does: pending drags the
  /// pacing held back, or members held back as busy. The caller asks for a `tick` then. A room
  /// within its rate relays a drag without waiting; one above it batches every drag of an interval
  /// into one `drags` frame per member (see `Room.flushPresence(now:busy:)`). `busy` connections
  /// are held back as at a tick.
  ///
  /// Call it after `received`.
  /// - Complexity: O(1) when nothing is due; a flush costs as at a tick.
  public func flushPresenceEarly(
    after connection: ConnectionHandle, now: Double,
    busy: (ConnectionHandle) -> Bool = { _ in false }
  ) -> (actions: [RoomAction], due: Double?) {
    guard let name = connections[connection]?.room, isLoaded(name) else { return ([], nil) }
    rooms[name]!.pace(presencePacing, connections: connections.count, audience: dragAudience, now: now)
    var actions: [RoomAction] = []
    let pending = inPlace(name) { $0.presence.hasPending || $0.states.hasPending } ?? false
    if pending && rooms[name]!.presence.mayFlush(now: now) {
      actions = rooms[name]!.flushPresence(now: now, busy: busy)
      actions.append(contentsOf: linkFlush(room: name, now: now))
    }
    let retry = busyRetry
    return (actions, inPlace(name) { $0.presenceDue(now: now, retry: retry) } ?? nil)
  }

  /// When the registry next needs a `tick` (seconds, the registry's clock): the soonest of
  /// `nextTick(room:now:)` over its rooms, or nil. The server asks the transport for a tick then,
  /// so nothing needs a periodic one.
  /// - Complexity: O(rooms).
  public func nextTick(now: Double) -> Double? {
    let rooms = self.rooms.keys.lazy.compactMap { self.nextTick(room: $0, now: now) }.min()
    return [rooms, nextDeadline].compactMap { $0 }.min()
  }

  /// When the room `name` next needs a `tick`, or nil: its next presence flush
  /// (`Room.presenceDue(now:retry:)`) or, when nobody is attached to it, its unloading.
  /// - Complexity: O(1).
  public func nextTick(room name: String, now: Double) -> Double? {
    guard let room = rooms[name] else { return nil }
    let presence = room.presenceDue(now: now, retry: busyRetry)
    let unload = attached[name] == nil ? room.unloadDue(now: now) : nil
    let publish = room.publishDue(now: now)
    return [presence, unload, publish].compactMap { $0 }.min()
  }

  /// The room `connection` is in, if it is open.
  public func roomName(of connection: ConnectionHandle) -> String? { connections[connection]?.room }
}
