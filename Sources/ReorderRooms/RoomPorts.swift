/// The log's answer to one append: the entry's seq and what it made, or why it was refused.
public typealias LogAnswer = (append: LogAppend, result: Result<AppendReply, LogError>)

/// The log port: carries out a registry's `.log` actions (`LogAction`) and answers through
/// `PortAnswers`. Exactly two implementations: one node's `LocalLog` (ReorderLocal, over
/// `LocalSequencer` and the SQLite store) and a cluster's `ClusterAdapter` (ReorderCluster, over
/// Redis). The server's driver runs the same code with either. Service thread only.
public protocol LogPort: AnyObject {
  /// Where answers go (the driver, which owns the port; held weakly).
  var receiver: (any PortAnswers)? { get set }
  /// Queues one action; never waits.
  func perform(_ action: LogAction)
  /// Keeps the records of ops this log answered `.ordered`, as their room resolved them
  /// (`RoomAction.persist`), in seq order; the driver hands over each room's records of a batch in
  /// one call, before the room's next snapshot. Answers `logDurable` once they are durable, or
  /// `logWriteFailed`. Only a log that orders before it stores answers `.ordered` (one node's,
  /// into its `RoomLogStore`); the shared log stores each op before it answers, so no room hands
  /// it a record.
  func record(room: String, entries: [LogEntry])
  /// Saves a snapshot of `room`, after the records handed over before it: the compaction of its
  /// stored log (`RoomAction.snapshot`). A failure that stops the room's later writes goes to
  /// `logWriteFailed` (one node's store takes none after a failed one, `RoomStore`); the shared
  /// log holds every op, so there a snapshot not stored is logged and costs a longer load only.
  func snapshot(room: String, snapshot: RoomSnapshot)
  /// The driver has performed a whole batch of the registry's actions: answers held for the end of
  /// a batch are handed over now, in the order their appends were made (one node answers its
  /// appends here, so that the writes a batch of answers leads to reach the store together).
  func batchEnded()
}

/// The presence port: carries out a registry's `.presence` actions (`PresenceAction`) and hands
/// what other nodes publish to `PortAnswers`. Exactly two implementations: `LocalPresenceChannel`
/// (ReorderLocal, over `LocalPresence`) and a cluster's `ClusterAdapter` (Redis pub/sub and roster
/// hashes). Service thread only.
public protocol PresencePort: AnyObject {
  /// Where deliveries go (the driver, which owns the port; held weakly).
  var receiver: (any PortAnswers)? { get set }
  /// Queues one action; never waits.
  func perform(_ action: PresenceAction)
}

/// Where the log and presence ports answer: the server's driver, which hands each answer to its
/// registry. Every method but `post` is called on the service thread.
public protocol PortAnswers: AnyObject, Sendable {
  /// Runs `work` on the service thread (any thread may call it).
  func post(_ work: @escaping @Sendable () -> Void)
  /// Appends were answered, in the order they were made (`RoomRegistry.appended`).
  func logAppended(_ answers: [LogAnswer])
  /// An append waited `seconds` for its log (`reorder_op_commit_seconds`).
  func logCommitWaited(seconds: Double)
  /// `room`'s records (`LogPort.record`) are durable up to `seq` (`RoomRegistry.durable`).
  func logDurable(room: String, upTo seq: UInt64)
  /// A write of `room` (records, or a snapshot) failed, and the store takes none of its later
  /// writes (`RoomRegistry.writeFailed`).
  func logWriteFailed(room: String, error: RoomStoreError)
  /// The epoch of `room` as loaded here, nil when it is not loaded: an answer to a write of another
  /// history of the room (replaced or deleted meanwhile) concerns nobody.
  func logEpoch(room: String) -> String?
  /// The figures of a loaded room for the board list (`RoomRegistry.summary`).
  func logSummary(room: String) -> BoardSummary?
  /// The epoch and seq of a loaded room (`RoomRegistry.position`): what applying answers or
  /// entries changed.
  func logPosition(room: String) -> (epoch: String, seq: UInt64)?
  /// Who made the ops `from...through` of a loaded room, as it applied them
  /// (`RoomRegistry.actors`).
  func logActors(room: String, from: UInt64, through: UInt64) -> [OpActor]
  /// Entries of `room`'s log arrived, from following it or from a read (`RoomRegistry.logged`).
  func logEntries(room: String, entries: [AppendedEntry])
  /// A read of a gap in `room`'s log failed (`RoomRegistry.rangeFailed`).
  func logRangeFailed(room: String)
  /// `room`'s history was replaced (a new `epoch`) or deleted (nil)
  /// (`RoomRegistry.logHistoryChanged`).
  func logHistoryChanged(room: String, epoch: String?)
  /// The log stopped following `room` (it was unloaded or dropped): what waits on it ends.
  func logRoomGone(_ room: String)
  /// The epoch a follower of `room` should expect, if the room knows it.
  func logFollowEpoch(room: String) -> String?
  /// A presence message of another node arrived (`RoomRegistry.presenceReceived`).
  func presenceReceived(room: String, node: String, payload: [UInt8])
  /// `room`'s roster was read: every session of other nodes, as `PresenceMessage.rosterEntry`
  /// (`RoomRegistry.roster`).
  func rosterRead(room: String, entries: [[UInt8]])
}
