import ReorderRooms

/// Which board model the server's rooms use: the replicated CRDT board.
enum ServerBoards {
  static let factory = CRDTRoomBoard.factory
}
