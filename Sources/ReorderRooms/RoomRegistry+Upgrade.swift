extension RoomRegistry {
  /// Starts the upgrade of the view `name` to a full room (`Room+View.swift`): a full `.load`,
  /// answered in `loaded(room:result:now:)`. Until then every frame of the room's connections is
  /// held, in order per connection, as while a room loads.
  func upgrade(_ name: String) -> [RoomAction] {
    guard rooms[name]?.isView == true, upgrading[name] == nil else { return [] }
    var waiting: [ConnectionHandle] = []
    for (connection, state) in connections where state.room == name && !state.closing && state.held == nil {
      connections[connection]!.held = []
      waiting.append(connection)
    }
    upgrading[name] = waiting.sorted()
    var load = RoomLoad(
      room: name, remembering: RoomLoad.remembering(limits), boards: boards, limits: limits, node: log.node.node,
      compactEvery: log.node.compactEvery)
    load.encodesBoard = false
    return [.load(load), .logLine(.debug, "room upgrading", [("room", name)])]
  }

  /// Whether `name` is a view whose upgrade is out.
  public func isUpgrading(_ name: String) -> Bool { upgrading[name] != nil }

  /// The answer to an upgrade's load: the full room takes the view's place and the frames held
  /// meanwhile are handled. A failed load, or a stored history that moved on while the room was a
  /// view (another process wrote to the data directory), drops the room: its connections are closed
  /// (1011) and reconnect to what is stored.
  func upgraded(room name: String, result: Result<PreparedRoom, RoomStoreError>, now: Double) -> [RoomAction] {
    let waiting = upgrading.removeValue(forKey: name) ?? []
    guard let view = rooms[name] else { return [] }
    var actions: [RoomAction] = []
    switch result {
    case .success(let prepared) where prepared.seq == view.seq && prepared.epoch == view.epoch:
      var room = prepared.room
      install(&room)
      room.takeOver(view: view)
      rooms[name] = room
      loadsCompleted += 1
      actions.append(.logLine(.debug, "room upgraded", [("room", name), ("seq", "\(room.seq)")]))
    case .success(let prepared):
      loadsFailed += 1
      return fail(
        room: name, reason: "storage failure: corrupt")
        + [
          .logLine(
            .error, "room upgrade found another history",
            [("room", name), ("seq", "\(view.seq)"), ("stored_seq", "\(prepared.seq)")])
        ]
    case .failure(let error):
      loadsFailed += 1
      actions.append(.logLine(.error, "room upgrade failed", [("room", name), ("error", "\(error)")]))
      return actions + fail(room: name, reason: "storage failure: \(error.kind)")
    }
    return actions + handleHeld(of: waiting, now: now)
  }

  /// A view's upgrade ends without its own answer (the room was reloaded meanwhile, another
  /// history): the frames it held are handled by the room as it is now.
  func releaseUpgrade(room name: String, now: Double) -> [RoomAction] {
    handleHeld(of: upgrading.removeValue(forKey: name) ?? [], now: now)
  }

  /// The frames `waiting` connections sent while the room was upgraded, handled in order.
  private func handleHeld(of waiting: [ConnectionHandle], now: Double) -> [RoomAction] {
    var actions: [RoomAction] = []
    for connection in waiting {
      guard let held = connections[connection]?.held else { continue }
      connections[connection]!.held = nil
      for frame in held {
        actions.append(contentsOf: received(connection, message: frame.bytes, isBinary: frame.isBinary, now: now))
      }
    }
    return actions
  }
}
