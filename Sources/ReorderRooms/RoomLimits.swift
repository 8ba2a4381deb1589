/// The limits and tunables of rooms (each maps to a `reorder serve` flag; see README).
public struct RoomLimits: Sendable, Equatable {
  /// Ops per second per connection (token bucket rate; burst is twice this).
  public var maxOpsPerSecond = 200
  /// Broadcasts per second per connection (token bucket rate; burst is twice this).
  public var maxBroadcastsPerSecond = 20
  /// Live + deleted items per room.
  public var maxItemsPerRoom = 10_000
  /// Lists per room.
  public var maxListsPerRoom = 100
  /// Rooms loaded at once.
  public var maxRooms = 1_000
  /// Connections per room.
  public var maxConnectionsPerRoom = 10_000
  /// Seconds a room stays loaded after its last connection left.
  public var roomIdleSeconds = 30.0
  /// Write a snapshot every this many ops (more for a large board, see `snapshotBytesPerOp`).
  public var snapshotEvery = 1_000
  /// A board whose last snapshot had n bytes is snapshotted every n / this ops at the least (at
  /// most the windows kept before a snapshot, see `SnapshotSchedule.interval`), so the snapshot work
  /// per op stays bounded. Snapshots are compacted, so n is set by the board's content.
  public static let snapshotBytesPerOp = 100
  /// Largest `since` gap served as a list of ops; larger gaps get the full board.
  public var maxCatchUpOps = 1_000
  /// Op ids remembered per room for idempotent re-sends (also rebuilt from the log on load).
  public var rememberedOpIDs = 10_000
  /// A room with more members than this is *large*: its joins and leaves are coalesced into the
  /// presence flush (`peers` frames) instead of a `peer` frame to everyone at once, and its
  /// welcomes list at most `Presence.listedPeers` peers (see docs/PROTOCOL.md).
  public var largeRoomMembers = 100

  /// The defaults.
  public init() {}

  /// Frames of any kind per second per connection: ops plus up to 120 drags.
  var maxFramesPerSecond: Double { Double(maxOpsPerSecond * 2 + 120) }

  /// Seconds' worth of `maxOpsPerSecond` violations (rate-limited or bad frames) tolerated before an
  /// abusive connection is closed: a reconnecting client that re-sends its pending ops in one burst is
  /// answered `rate_limited`, not closed; a sustained flood is.
  static let violationSeconds = 5.0
}
