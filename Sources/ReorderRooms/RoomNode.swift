/// The node a registry's rooms run on, fixed when the registry is made: its id, and what its log
/// and presence implementations ask of the rooms.
public struct RoomNode: Sendable, Equatable {
  /// This node's id: the `node` of its log entries and presence messages. Unique per running
  /// process (the server passes its node id and boot), since a node ignores its own messages.
  public var node: String
  /// How long a session of another node learned from a presence message is kept even when a
  /// roster read does not list it yet (the read may have been taken before its node added it), in
  /// seconds.
  public var rosterGrace: Double
  /// Every replica of a room compacts its board right after applying an entry whose seq is a
  /// multiple of this, made by a compacting node (`OpRecord.madeAt`; docs/CLUSTER.md, "Compaction
  /// at agreed seqs"). Every node sharing a log must use the same value, and a room's stored log
  /// was made with it: it is part of the stored format, so the server always uses
  /// `compactionInterval` (tests use small ones).
  public var compactEvery: UInt64
  /// Whether the rooms' storage keeps what one node writes, as the storage declares it
  /// (`RoomStore.keepsResolvedOps`): a load keeps the catch-up frames before its snapshot and may
  /// open a room as a view (`Room+View.swift`), and a history page older than a room's window is
  /// read from its records. Otherwise the rooms resolve what they load, and rebuild such a page.
  public var keepsResolvedOps: Bool

  /// The compaction interval of every room. It bounds how many ops a node may have out before a
  /// boundary refuses them `stale` (an overloaded node with more out than this makes little
  /// progress), and how many moves' tombstones a snapshot between two boundaries keeps.
  public static let compactionInterval: UInt64 = 5_000

  /// Whether a replica of a room compacts its board right after applying `record` at `seq`: at
  /// every multiple of `every` (the room's `compactEvery`), when the op was made by a compacting
  /// node (it carries `OpRecord.madeAt`). Ops of whole-board writes and of logs stored before rooms
  /// compacted carry none, so replaying them compacts where their makers did: nowhere. Whatever
  /// replays a room's log (a replica, a load, the history, a backup) follows this rule, or it
  /// would apply later ops on another tree than their makers'.
  public static func compacts(after record: OpRecord, seq: UInt64, every: UInt64) -> Bool {
    record.madeAt != nil && seq % every == 0
  }

  /// A node.
  public init(
    node: String, rosterGrace: Double = 5, compactEvery: UInt64 = RoomNode.compactionInterval,
    keepsResolvedOps: Bool = false
  ) {
    precondition(compactEvery > 0, "a compaction interval is positive")
    self.node = node
    self.rosterGrace = rosterGrace
    self.compactEvery = compactEvery
    self.keepsResolvedOps = keepsResolvedOps
  }

  /// A node whose rooms are stored by `storage`: it keeps what `storage` declares it keeps.
  public init(
    node: String, compactEvery: UInt64 = RoomNode.compactionInterval, storedBy storage: any RoomStore.Type
  ) {
    self.init(node: node, compactEvery: compactEvery, keepsResolvedOps: storage.keepsResolvedOps)
  }
}
