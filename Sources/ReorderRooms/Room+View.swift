/// A room opened as a view: what a websocket's first join loads when the room's latest snapshot
/// was stored with its board JSON and no op follows it.
///
/// Loading a large board is mostly decoding its snapshot and encoding its board for the welcome;
/// an audience joining a board, or a viewer opening it to look, needs neither: the welcome's board
/// is the stored JSON, at the snapshot's seq. A view has the room's seq and epoch, its members,
/// roster and presence, but no board (an empty stand-in), no op ids and no catch-up window: a
/// `since` join gets the full board (nothing in memory to catch up from, as after a gap too
/// large). The first frame that needs the board (an op, a drag) or an API write makes the registry
/// upgrade the room (`RoomRegistry+Upgrade.swift`): a full load off the rooms' thread, the room's
/// frames held meanwhile, then the full room takes over the view's members and presence. Nothing
/// is written while a room is a view, so the full room is at the same seq.
extension Room {
  /// A view of `snapshot`, whose `board` is `welcome.board` at its seq; `first` is the room's op 1
  /// (its epoch). Pure: nothing is decoded but op 1's header.
  init(
    name: String, viewOf snapshot: RoomSnapshot, board json: [UInt8], first: LogEntry, boards: RoomBoardFactory,
    limits: RoomLimits
  ) {
    self.init(
      name: name, board: boards.empty(), limits: limits, now: 0,
      epoch: (try? OpRecord(payload: first.payload))?.epoch ?? "")
    seq = snapshot.seq
    durability.isDurable(at: snapshot.seq)
    snapshots.loaded(bytes: snapshot.bytes.count)
    encodedBoardCache = (snapshot.seq, json)
    isView = true
  }

  /// Whether a view must be upgraded before it handles `message` (`joined`: the connection's hello
  /// was taken): an op changes the board, a drag names its items, and a join with a `since` the
  /// catch-up window would answer with ops gets them, as from a full room (a reconnect after a
  /// restart stays a catch-up). A join without one, or already at the room's seq, is served here.
  func needsFullRoom(for message: ClientMessage, joined: Bool) -> Bool {
    switch message {
    case .op, .drag: return joined
    case .hello(let hello):
      return !joined && hello.since != seq && canCatchUp(since: hello.since, epoch: hello.epoch, to: seq)
    case .refresh, .presence, .broadcast, .history: return false
    }
  }

  /// The full room built for an upgrade takes over what the view served: its members (welcomed at
  /// the same seq), roster, presence, counters and idle time, and the board JSON of the welcomes.
  mutating func takeOver(view: Room) {
    members = view.members
    roster = view.roster
    presence = view.presence
    states = view.states
    link = view.link
    counters = view.counters
    idleSince = view.idleSince
    if let cached = view.encodedBoardCache, cached.seq == seq { encodedBoardCache = cached }
  }
}
