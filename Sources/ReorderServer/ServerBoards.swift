import ReorderCRDT
import ReorderRooms

/// Which board model the server's rooms use: the replicated CRDT board, as this node's replica.
enum ServerBoards {
  static func factory(replica: ReplicaID) -> RoomBoardFactory { CRDTRoomBoard.factory(replica: replica) }
}
