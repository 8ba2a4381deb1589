/// What `append` did with an op.
public enum AppendOutcome: Sendable, Equatable {
  /// The op is in the log at this seq now.
  case applied(seq: UInt64)
  /// An op with this key was already in the log, at this seq; nothing was added.
  case known(seq: UInt64)
  /// The room has another epoch (it was reset or deleted and made again); nothing was added.
  case epochMismatch(current: String)
  /// The op's seq would have passed its `until` (a compaction boundary lies between the state it
  /// was made on and its place); nothing was added and its key is not recorded.
  case stale(until: UInt64)
}

/// One op to append (pipelined appends take several).
public struct ClusterAppend: Sendable, Equatable {
  /// The room.
  public var room: String
  /// The epoch the caller's replica belongs to; the first op of a room sets it.
  public var epoch: String
  /// The op's idempotency key.
  public var key: [UInt8]
  /// The node appending it.
  public var node: String
  /// The op's bytes (the encoded OpRecord).
  public var payload: [UInt8]
  /// Whether the op may create the room (it was made on an empty replica, at seq 0): an op made on
  /// a replica of a history that is gone (the board was deleted) must not start a new one.
  public var creates: Bool
  /// The highest seq the op may get (0: any): beyond it the op is refused `stale`.
  public var until: UInt64

  /// An op of `room` with `key` and `payload`, appended by `node` in `epoch`.
  public init(
    room: String, epoch: String, key: [UInt8], node: String, payload: [UInt8], creates: Bool = true, until: UInt64 = 0
  ) {
    self.room = room
    self.epoch = epoch
    self.key = key
    self.node = node
    self.payload = payload
    self.creates = creates
    self.until = until
  }
}

/// One entry of a room's log stream.
public struct ClusterLogEntry: Sendable, Equatable {
  /// Its seq (the stream id is `<seq>-1`).
  public var seq: UInt64
  /// The node that appended it.
  public var node: String
  /// The op's idempotency key.
  public var key: [UInt8]
  /// The op's bytes.
  public var op: [UInt8]
  /// The epoch of the history it belongs to (the entry's `epoch` field; nil in entries written
  /// before the field existed): a tail tells a replaced history's entries from its own by it.
  public var epoch: String?

  /// An entry at `seq`.
  public init(seq: UInt64, node: String, key: [UInt8], op: [UInt8], epoch: String? = nil) {
    self.seq = seq
    self.node = node
    self.key = key
    self.op = op
    self.epoch = epoch
  }
}

/// A room's `meta` hash.
public struct ClusterRoomMeta: Sendable, Equatable {
  /// The room's epoch; nil before its first op (or after it was deleted).
  public var epoch: String?
  /// The last seq assigned (0: none).
  public var seq: UInt64
  /// The seq of the latest snapshot (0: none).
  public var snapshotSeq: UInt64
  /// The highest seq trimmed from the log (0: none): a range after a lower seq is incomplete.
  public var trimmedSeq: UInt64
  /// The replicated watermark (`reorder_replicated`): every op up to it is on the replicas that
  /// `--redis-wait-replicas` asks for; nil for a room that has none (nothing appended since
  /// watermarks were kept: all of it counts).
  public var replicated: UInt64?

  /// A meta value.
  public init(epoch: String?, seq: UInt64, snapshotSeq: UInt64, trimmedSeq: UInt64, replicated: UInt64? = nil) {
    self.epoch = epoch
    self.seq = seq
    self.snapshotSeq = snapshotSeq
    self.trimmedSeq = trimmedSeq
    self.replicated = replicated
  }

  /// The last seq other nodes may apply when they wait for replicas: the watermark, or the whole
  /// log of a room that has none.
  public var watermark: UInt64 { min(seq, replicated ?? seq) }
}

/// A room's latest snapshot.
public struct ClusterSnapshot: Sendable, Equatable {
  /// The seq the snapshot includes ops up to.
  public var seq: UInt64
  /// The board snapshot's bytes.
  public var bytes: [UInt8]

  /// A snapshot at `seq`.
  public init(seq: UInt64, bytes: [UInt8]) {
    self.seq = seq
    self.bytes = bytes
  }
}

/// One session of a room's roster.
public struct ClusterRosterEntry: Sendable, Equatable {
  /// The session id.
  public var session: String
  /// The peer, as JSON text (the rooms' encoding; this module does not read it).
  public var peer: String

  /// A session and its peer JSON.
  public init(session: String, peer: String) {
    self.session = session
    self.peer = peer
  }
}

/// A read of a room's roster.
public struct ClusterRoster: Sendable, Equatable {
  /// The roster's version (changes with every session put, removed or expired).
  public var version: String
  /// Its sessions, in no order; nil when the version is the one the reader knew.
  public var entries: [ClusterRosterEntry]?

  /// A read.
  public init(version: String, entries: [ClusterRosterEntry]?) {
    self.version = version
    self.entries = entries
  }
}

/// What trimming a room's log did.
public struct ClusterTrim: Sendable, Equatable {
  /// Entries removed by this call (with their op ids).
  public var removed: Int
  /// The highest seq trimmed from the log so far (0: none).
  public var trimmedSeq: UInt64

  /// A trim result.
  public init(removed: Int, trimmedSeq: UInt64) {
    self.removed = removed
    self.trimmedSeq = trimmedSeq
  }
}

/// What writing a whole board (`putBoard`) did.
public enum BoardPutOutcome: Sendable, Equatable {
  /// The room had no ops: the board is its new history.
  case created
  /// The room had ops and replacing was asked for: its history is the board's now.
  case replaced
  /// The room has ops and replacing was not asked for; nothing changed.
  case exists
}
