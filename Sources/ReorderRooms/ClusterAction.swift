/// What a registry asks of its rooms' log (one node's `LocalLog`, or Redis in a cluster) and, in a
/// cluster, of the presence channel and roster: returned inside `RoomAction.cluster`, answered
/// through the registry's log inputs (`RoomRegistry+Log.swift`). See docs/CLUSTER.md, "Replicas
/// and seq order", for the keys and the function each one maps to.
public enum ClusterAction: Sendable, Equatable {
  /// Append one op with the `reorder_append_ops` function; hand the reply (or the failure) to
  /// `RoomRegistry.appended(_:result:now:)`.
  case append(SharedAppend)
  /// Read the room's log entries with seq in `after + 1 ... through` (`XRANGE`) and hand them to
  /// `RoomRegistry.logged(room:entries:now:)`, or a failure to `RoomRegistry.rangeFailed(room:)`.
  case readRange(room: String, after: UInt64, through: UInt64)
  /// Tail the room's log from the entry after `after` (`XREAD BLOCK` from `<after>-1`), handing
  /// entries to `RoomRegistry.logged(room:entries:now:)` as they come; follow the room's presence
  /// channel and roster too. The room is loaded at `after`.
  case follow(room: String, after: UInt64)
  /// Stop tailing the room's log, channel and roster (the room was unloaded or dropped).
  case unfollow(room: String)
  /// Publish this node's presence changes of the room (`SPUBLISH reorder:{R}:presence
  /// "<node>\n<payload>"`); the payload is a `PresenceMessage` (compact JSON).
  case publish(room: String, payload: [UInt8])
  /// Add or refresh one of this node's sessions in the room's roster (`HSET` the peer JSON,
  /// `ZADD` its expiry); the Redis side keeps refreshing it until `rosterLeave`.
  case rosterJoin(room: String, session: String, peer: [UInt8])
  /// Remove one of this node's sessions from the room's roster.
  case rosterLeave(room: String, session: String)
  /// Not for Redis: every op of the HTTP API's request `request` (`RoomRegistry.applyAPIOps`)
  /// is answered; answer the request with these results, in the order of its ops.
  case apiDone(request: UInt64, results: [APIOpResult])
  /// Not for Redis: the API's request `request` will get no results (the board was replaced or
  /// deleted, or the room dropped); answer it 503 with `reason`.
  case apiFailed(request: UInt64, reason: String)
}

/// One op to append to a room's shared log.
public struct SharedAppend: Sendable, Equatable {
  /// The room (`reorder:{room}:log`).
  public var room: String
  /// The room's epoch as this node knows it (`ARGV[1]`).
  public var epoch: String
  /// The op's idempotency key (`ARGV[2]`): `OpRecord.key(client:id:)` as UTF-8.
  public var key: [UInt8]
  /// This node's id (`ARGV[3]`, the entry's `node` field).
  public var node: String
  /// The encoded `OpRecord` (`ARGV[4]`, the entry's `op` field), encoded when it is read: by the
  /// Redis appender, on its thread (one node's log never needs the bytes).
  public var payload: [UInt8] { record?.encoded() ?? bytes }
  /// The op, as the room made it (nil when made from bytes).
  var record: OpRecord?
  /// The bytes of an append made from bytes.
  private var bytes: [UInt8] = []
  /// Tells the answers of one registry's appends apart (not sent to Redis).
  public var ticket: UInt64
  /// Whether the op may create the room's history (`ARGV[5]`): made on a replica that had applied
  /// nothing. An op made on a replica with a history must not start a new one where that history
  /// is gone (the board was deleted): `reorder_append_ops` answers `EPOCH ` with no epoch then.
  public var creates: Bool
  /// The highest seq the op may get (`ARGV[6]`; 0: any): the first compaction boundary after the
  /// state it was made on (`RoomLog.boundary(after:)`). Beyond it the op would be applied on a
  /// board compacted since it was made, so `reorder_append_ops` refuses it (`STALE <until>`) and the
  /// node makes it again once it has applied that far.
  public var until: UInt64

  /// An append.
  public init(
    room: String, epoch: String, key: [UInt8], node: String, payload: [UInt8], ticket: UInt64, creates: Bool = true,
    until: UInt64 = 0
  ) {
    self.room = room
    self.epoch = epoch
    self.key = key
    self.node = node
    self.bytes = payload
    self.ticket = ticket
    self.creates = creates
    self.until = until
  }

  /// An append of `record`, encoded when `payload` is read.
  init(
    room: String, epoch: String, key: [UInt8], node: String, record: OpRecord, ticket: UInt64, creates: Bool,
    until: UInt64
  ) {
    self.init(
      room: room, epoch: epoch, key: key, node: node, payload: [], ticket: ticket, creates: creates, until: until)
    self.record = record
  }
}

/// What `reorder_append_ops` answered.
public enum AppendReply: Sendable, Equatable {
  /// The op was new: it is in the log at this seq (`{seq, "applied"}`).
  case applied(UInt64)
  /// The key was already in the log, at this seq (`{seq, "known"}`); nothing was appended.
  case known(UInt64)
  /// The op has this seq but is not durable yet (the local log, `LocalSequencer`): the room applies
  /// it now and stores its resolved record itself (`.persist`); its `applied` goes out once the
  /// store reports it durable (`RoomRegistry.durable(room:upTo:)`).
  case ordered(UInt64)
}

/// Why a shared-log call failed.
public enum SharedLogError: Error, Sendable, Equatable {
  /// Redis could not be reached, or the call failed or timed out: retryable.
  case unavailable(String)
  /// The room's history is another one (`EPOCH <current epoch>`).
  case epoch(String)
  /// The op's seq would have been beyond its `SharedAppend.until` (`STALE <until>`): a compaction
  /// boundary lies between the state it was made on and its place in the log. Nothing was appended
  /// and its key was not recorded; make it again on a replica that has applied up to `until`.
  case stale(UInt64)
}

/// One entry of a room's log (`<seq>-1`, fields `node`, `key`, `op`).
public struct SharedLogEntry: Sendable, Equatable {
  /// The entry's seq (its stream id `<seq>-1`).
  public var seq: UInt64
  /// The node that appended it.
  public var node: String
  /// The op's idempotency key.
  public var key: [UInt8]
  /// The encoded `OpRecord`.
  public var payload: [UInt8]

  /// An entry.
  public init(seq: UInt64, node: String, key: [UInt8], payload: [UInt8]) {
    self.seq = seq
    self.node = node
    self.key = key
    self.payload = payload
  }

  /// The entry as the single-node store keeps it (for `RoomHistory`).
  public var logEntry: LogEntry { LogEntry(seq: seq, payload: payload) }
}

/// A registry's place in a cluster, fixed when the registry is made.
public struct ClusterNode: Sendable, Equatable {
  /// This node's id: the `node` of its log entries and presence messages. Unique per running
  /// process (the server passes its node id and boot), since a node ignores its own messages.
  public var node: String
  /// How long a remote session learned from a presence message is kept even when a roster read
  /// does not list it yet (the read may have been taken before its node added it), in seconds.
  public var rosterGrace: Double
  /// Every replica of a room compacts its board right after applying an entry whose seq is a
  /// multiple of this, made by a compacting node (`OpRecord.madeAt`; docs/CLUSTER.md, "Compaction
  /// at agreed seqs"). Every node of a cluster must use the same value, and a room's stored log
  /// was made with it: it is part of the stored format, so the server always uses
  /// `compactionInterval` (tests use small ones).
  public var compactEvery: UInt64

  /// The compaction interval of every cluster room. It bounds how many ops a node may have out
  /// before a boundary refuses them `stale` (an overloaded node with more out than this makes
  /// little progress), and how many moves' tombstones a snapshot between two boundaries keeps.
  public static let compactionInterval: UInt64 = 5_000

  /// Whether a replica of a cluster room compacts its board right after applying `record` at
  /// `seq`: at every multiple of `every` (the room's `compactEvery`), when the op was made by a
  /// compacting node (it carries `OpRecord.madeAt`). Ops of whole-board writes and of logs stored
  /// before cluster rooms compacted carry none, so replaying them compacts where their makers did:
  /// nowhere. Whatever replays a room's shared log (a replica, a load, the history, a backup)
  /// follows this rule, or it would apply later ops on another tree than their makers'.
  public static func compacts(after record: OpRecord, seq: UInt64, every: UInt64) -> Bool {
    record.madeAt != nil && seq % every == 0
  }

  /// Whether other nodes follow the rooms' presence (the Redis channel and roster): joins, leaves
  /// and drags are published (`.publish`, `.rosterJoin`, `.rosterLeave`). False on one node, where
  /// presence stays in the process and costs nothing more.
  public var sharesPresence: Bool
  /// Whether the room store keeps what one node writes: records holding their resolved op and
  /// snapshots with their board JSON (SQLite), so that a load keeps the catch-up frames before its
  /// snapshot and may open a room as a view (`Room+View.swift`). False for the shared log, whose
  /// records hold the maker's view of each op.
  public var keepsResolvedOps: Bool

  /// A node.
  public init(
    node: String, rosterGrace: Double = 5, compactEvery: UInt64 = ClusterNode.compactionInterval,
    sharesPresence: Bool = true, keepsResolvedOps: Bool = false
  ) {
    precondition(compactEvery > 0, "a compaction interval is positive")
    self.node = node
    self.rosterGrace = rosterGrace
    self.compactEvery = compactEvery
    self.sharesPresence = sharesPresence
    self.keepsResolvedOps = keepsResolvedOps
  }

  /// A node with its log on its own store (one node, `LocalSequencer`): presence stays in the
  /// process, the store keeps resolved ops.
  public static func local(node: String, compactEvery: UInt64 = ClusterNode.compactionInterval) -> ClusterNode {
    ClusterNode(node: node, compactEvery: compactEvery, sharesPresence: false, keepsResolvedOps: true)
  }
}
