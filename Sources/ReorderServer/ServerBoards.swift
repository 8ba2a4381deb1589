import ReorderRooms

/// Which board model the server's rooms use.
enum ServerBoards {
  /// The array reference model until the CRDT board adapter lands.
  static let factory = RoomBoardFactory.plain
}
