/// The Redis names of one room (docs/CLUSTER.md, "Keys and the function"). Every key carries the
/// hash tag `{room}`, so that a room's keys share one slot of a future Redis Cluster and one
/// function call may touch them all. Room names are the URL's room segment (A-Z a-z 0-9 - _ .),
/// which holds no brace.
public struct ClusterKeys: Sendable, Equatable {
  /// The room.
  public let room: String

  /// The keys of `room`.
  public init(room: String) { self.room = room }

  private var prefix: String { "reorder:{\(room)}:" }
  /// Stream of ops: entry id `<seq>-1`, fields `node`, `key`, `op`.
  public var log: String { prefix + "log" }
  /// Hash `epoch`, `seq` (last assigned), `snapshot_seq`, `trimmed_seq` (highest trimmed from the log).
  public var meta: String { prefix + "meta" }
  /// Hash op key → seq, for idempotency across nodes; trimmed with the log.
  public var ids: String { prefix + "ids" }
  /// Hash `seq`, `bytes`: the latest snapshot.
  public var snapshot: String { prefix + "snapshot" }
  /// Hash seq → snapshot bytes: every snapshot from the base of the kept log on (the latest at or
  /// before the first kept op), so that the board at any kept seq can be rebuilt (`?at=`, the
  /// history). Trimmed with the log.
  public var bases: String { prefix + "bases" }
  /// String: the node id holding the snapshot/trim lease (`SET NX PX`).
  public var lease: String { prefix + "lease" }
  /// Hash session → `<node>\n<peer JSON>`: every session in the room, on any node.
  public var roster: String { prefix + "roster" }
  /// Sorted set node → expiry (ms since the epoch): the nodes with sessions in the room, each
  /// alive until its heartbeat's expiry.
  public var rosterNodes: String { prefix + "roster:nodes" }
  /// Integer: counts the roster's changes, so that a read of an unchanged roster returns nothing.
  public var rosterVersion: String { prefix + "roster:version" }
  /// Shard channel on which each call's appends are published as they are logged (one
  /// `ClusterNotice` per call): what the nodes' tails read.
  public var appends: String { prefix + "appends" }
  /// Pub/sub channel of presence messages `<node id>\n<payload>`.
  public var presence: String { prefix + "presence" }
  /// Hash `epoch`, `seq`, `lists`, `items`, `updated_at` (ms since the epoch): the board list's
  /// figures, written by the lease holder (`putSummary`).
  public var summary: String { prefix + "summary" }

  /// Every key of the room (not the channel, not its entry in `directory`): what deleting the
  /// room removes.
  public var all: [String] { [log, meta, ids, snapshot, bases, lease, roster, rosterNodes, rosterVersion, summary] }

  /// Sorted set of every room with a summary, all scored 0 so that `ZRANGEBYLEX` pages through
  /// them by name. The one key without a `{room}` hash tag: it lists rooms of every slot, so in a
  /// Redis Cluster it lives in one slot of its own and is written apart from the room's keys.
  public static let directory = "reorder:boards"

  /// The room of a presence channel name, or nil for another channel.
  public static func room(ofPresenceChannel channel: String) -> String? { room(of: channel, suffix: "presence") }

  /// The room of an appends channel name, or nil for another channel.
  public static func room(ofAppendsChannel channel: String) -> String? { room(of: channel, suffix: "appends") }

  private static func room(of channel: String, suffix: String) -> String? {
    let head = "reorder:{"
    let tail = "}:" + suffix
    guard channel.hasPrefix(head), channel.hasSuffix(tail), channel.count > head.count + tail.count else { return nil }
    return String(channel.dropFirst(head.count).dropLast(tail.count))
  }
}
