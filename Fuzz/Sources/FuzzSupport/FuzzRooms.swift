import ReorderBasics
import ReorderCRDT
import ReorderRooms

/// A `RoomRegistry` driven with no sockets for the fuzz targets: it performs the registry's actions
/// into per-connection frames and closes, over an `InMemoryRoomStore` that answers at once, and makes
/// every append durable at once. On one node its appends are ordered by a `LocalSequencer`, as the
/// `LocalLog` (ReorderLocal) orders them; in cluster mode its `.log` work is only recorded (`logWork`).
/// One thread only.
///
/// A target builds one per process, brings it to the moment every input starts from (a room loaded,
/// a connection open or welcomed), `save()`s it, and `restore()`s it before each input: building a
/// registry and loading a room per input cost more than the input's own work.
public final class FuzzRooms: @unchecked Sendable {
  /// The registry under test.
  public let registry: RoomRegistry
  /// The store behind it.
  public let storage = InMemoryRoomStore()
  /// Frames sent to each connection, parsed, in order.
  public private(set) var frames: [ConnectionHandle: [JSONValue]] = [:]
  /// The close of each closed connection.
  public private(set) var closes: [ConnectionHandle: (code: UInt16, reason: String)] = [:]
  /// The log work asked for (cluster mode), in order.
  public private(set) var logWork: [LogAction] = []
  /// The log lines the registry asked for, in order.
  public private(set) var logs: [(level: Log.Level, event: String, fields: [(String, String)])] = []
  /// The clock handed to the registry, in seconds.
  public var now = 1_000.0
  /// One node's log (nil in cluster mode), and its answers not yet handed to the registry.
  private var sequencer: LocalSequencer?
  private var answers: [(append: LogAppend, result: Result<AppendReply, LogError>)] = []
  private var answering = false
  private var saved: (registry: RegistryState, now: Double, sequencer: LocalSequencer?)?

  /// A registry of CRDT boards with default limits and `verifier` checking hello tokens; in
  /// cluster mode as `node` (its boards replica 7) when `node` is given.
  public init(verifier: (any AccessVerifier)? = nil, node: RoomNode? = nil) {
    if let node {
      registry = RoomRegistry(
        limits: RoomLimits(), boards: CRDTRoomBoard.factory(replica: ReplicaID(7)), sessionPrefix: "s",
        node: node)
    } else {
      registry = RoomRegistry(limits: RoomLimits(), boards: CRDTRoomBoard.factory)
      sequencer = LocalSequencer()
    }
    registry.accessVerifier = verifier
    // A fixed wall clock: the same input makes the same records.
    registry.wallClock = { 1_700_000_000_000 }
  }

  /// Remembers the registry's state and the clock, for `restore()`.
  public func save() {
    saved = (RegistryState(registry), now, sequencer)
  }

  /// Sets the registry and the clock back to the last `save()` and forgets every frame, close,
  /// cluster work and log line recorded since. The store is not set back (the targets that
  /// restore write nothing to it that a later input reads).
  public func restore() {
    guard let saved else { preconditionFailure("restore() before save()") }
    saved.registry.restore(registry)
    now = saved.now
    sequencer = saved.sequencer
    answers = []
    frames = [:]
    closes = [:]
    logWork = []
    logs = []
  }

  /// Opens `connection` on `room` (loading the room through the store).
  public func open(_ connection: ConnectionHandle, room: String) {
    perform(registry.opened(connection, room: room, now: now))
  }

  /// Hands `connection` one frame.
  public func receive(_ connection: ConnectionHandle, _ bytes: [UInt8]) {
    perform(registry.received(connection, message: bytes, isBinary: false, now: now))
  }

  /// The `type` of each frame `connection` was sent.
  public func types(_ connection: ConnectionHandle) -> [String] {
    (frames[connection] ?? []).map { $0["type"]?.stringValue ?? "?" }
  }

  /// Performs the registry's actions (and those their answers bring, at once).
  public func perform(_ actions: [RoomAction]) {
    for action in actions {
      switch action {
      case .send(let c, let bytes, _): deliver(c, bytes)
      case .broadcast(let cs, let bytes, _): for c in cs { deliver(c, bytes) }
      case .persist(let room, let ops):
        storage.append(room: room, entries: ops) { _ in }
        perform(registry.durable(room: room, upTo: ops.map(\.seq).max() ?? 0))
      case .snapshot(let room, let snapshot):
        storage.saveSnapshot(room: room, snapshot: snapshot) { _ in }
      case .load(let load):
        load.run(on: storage) { result in
          self.perform(self.registry.loaded(room: load.room, result: result, now: self.now))
        }
      case .read(let read):
        storage.entries(room: read.room, after: read.after, limit: read.limit) { result in
          self.perform(self.registry.read(read, result: result))
        }
      case .history(let read):
        read.run(on: storage, rfc3339: { String($0) }) { frame in self.deliver(read.connection, frame) }
      case .close(let c, let code, let reason):
        closes[c] = (code, reason)
      case .logLine(let level, let event, let fields):
        logs.append((level, event, fields))
      case .log(.append(let append)) where sequencer != nil:
        answers.append((append, sequencer!.append(append)))
      case .log(.follow(let room, let after)) where sequencer != nil:
        sequencer!.follow(room: room, after: after)
      case .log(.unfollow(let room)) where sequencer != nil:
        sequencer!.unfollow(room: room)
      case .log(let work):
        logWork.append(work)
      case .presence, .apiDone, .apiFailed:
        // One registry: nobody else follows its presence; the fuzzed inputs make no API requests.
        break
      }
    }
    // The log's answers, in append order, after the actions that made the appends.
    guard !answering else { return }
    answering = true
    while !answers.isEmpty {
      let answer = answers.removeFirst()
      perform(registry.appended(answer.append, result: answer.result, now: now))
    }
    answering = false
  }

  private func deliver(_ c: ConnectionHandle, _ bytes: [UInt8]) {
    guard closes[c] == nil else { return }
    guard let frame = try? JSONValue.parse(bytes) else {
      fuzzCheck(false, "the server sent a frame that is not JSON")
      return
    }
    frames[c, default: []].append(frame)
  }
}
