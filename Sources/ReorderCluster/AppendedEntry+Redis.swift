import ReorderRedis
import ReorderRooms

extension AppendedEntry {
  /// The entry of a room's Redis stream as the rooms take it (`RoomRegistry.logged`): what the
  /// tail hands over for each entry `XREAD` returns (and the Redis fuzz target feeds).
  init(_ entry: ClusterLogEntry) {
    self.init(seq: entry.seq, node: entry.node, key: entry.key, payload: entry.op)
  }
}
