/// What a registry asks of its rooms' log: returned inside `RoomAction.log`, answered through the
/// registry's log inputs (`RoomRegistry+Log.swift`). Two implementations: one node's `LocalLog`
/// over `LocalSequencer`, and `ClusterAdapter` over Redis (docs/CLUSTER.md, "Replicas and seq
/// order", names the keys and the function each case maps to).
public enum LogAction: Sendable, Equatable {
  /// Append one op (Redis: the `reorder_append_ops` function); hand the reply (or the failure) to
  /// `RoomRegistry.appended(_:result:now:)`.
  case append(LogAppend)
  /// Read the room's log entries with seq in `after + 1 ... through` (Redis: `XRANGE`) and hand
  /// them to `RoomRegistry.logged(room:entries:now:)`, or a failure to
  /// `RoomRegistry.rangeFailed(room:)`.
  case readRange(room: String, after: UInt64, through: UInt64)
  /// Deliver the room's log from the entry after `after` (Redis: `XREAD BLOCK` from `<after>-1`)
  /// to `RoomRegistry.logged(room:entries:now:)` as entries come. The room is loaded at `after`.
  case follow(room: String, after: UInt64)
  /// Stop delivering the room's log (the room was unloaded or dropped); the API's requests
  /// waiting on the room end.
  case unfollow(room: String)
}

/// One op to append to a room's log.
public struct LogAppend: Sendable, Equatable {
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

/// Why a call of the log failed.
public enum LogError: Error, Sendable, Equatable {
  /// Redis could not be reached, or the call failed or timed out: retryable.
  case unavailable(String)
  /// The room's history is another one (`EPOCH <current epoch>`).
  case epoch(String)
  /// The op's seq would have been beyond its `LogAppend.until` (`STALE <until>`): a compaction
  /// boundary lies between the state it was made on and its place in the log. Nothing was appended
  /// and its key was not recorded; make it again on a replica that has applied up to `until`.
  case stale(UInt64)
}

/// One entry of a room's log (`<seq>-1`, fields `node`, `key`, `op`).
public struct AppendedEntry: Sendable, Equatable {
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
