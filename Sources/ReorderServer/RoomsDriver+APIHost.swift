import Foundation
import ReorderAPI
import ReorderBasics
import ReorderCluster
import ReorderRooms

/// The driver as the API's host (`APIHandlers`), and where the API's board changes reach the rest
/// of the server (webhooks).
extension RoomsDriver: APIHost {
  /// A board was created or replaced (stored). The one place to tell others (webhooks): a
  /// `board.created`, then the `board.changed` of its seeded ops 1…seq, so that the new epoch's
  /// events start at `from_seq` 1 as docs/WEBHOOKS.md has it (in cluster mode the lease holder
  /// reports from the PUT's summary on, which is at that seq).
  func boardCreated(_ name: String, _ board: CreatedBoard) {
    Log.log(.info, board.replaced ? "board replaced by the API" : "board created by the API", [("room", name)])
    webhooks?.boardCreated(room: name, epoch: board.epoch)
    if board.seq > 0 {
      webhooks?.boardChanged(room: name, epoch: board.epoch, fromSeq: 1, toSeq: board.seq, actors: [.api])
    }
  }

  /// A board was deleted (stored). The one place to tell others (webhooks).
  func boardDeleted(_ name: String) {
    webhooks?.boardDeleted(room: name)
  }
}
