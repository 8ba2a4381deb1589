import ReorderAPI
import ReorderBasics
import ReorderCluster
import ReorderRooms
import ReorderStore
import ReorderTransport
import ReorderWebhooks

/// Runs the rooms on the lws service thread: turns transport callbacks into registry calls, and the
/// registry's actions into sends, closes, reads of storage, calls of the log and presence ports,
/// and log lines. The writes (records, snapshots) are the log's (`LogPort`).
///
/// Threading: every method runs on the service thread, except `post`, which the storage's, the
/// log's and the presence port's threads call to hand their answers back. Nothing here waits for
/// storage: loads and reads are calls answered later.
/// `@unchecked Sendable`: all state is confined to the service thread; the other threads only
/// read `transport` (set once before `start()`) to `post`.
///
/// The transport is the `ServerTransport` port: `WebSocketServer` in service, `EmbeddedTransport`
/// in tests (the same driver, rooms and store, with no sockets).
final class RoomsDriver: WebSocketServerHandler, @unchecked Sendable {
  let registry: RoomRegistry
  let storage: any RoomStore
  /// Set right after the transport is made; the transport owns this driver, hence `weak`. An
  /// existential of a class-bound protocol: a reference and a witness table, no box, so a send
  /// through it costs one indirect call.
  weak var transport: (any ServerTransport)?
  /// When the driver was made (`MonotonicClock`), for `/healthz`'s uptime.
  let startedAt = MonotonicClock.now()
  /// Answers `/metrics` on this port; nil when `--metrics-listen` serves it elsewhere (404 here).
  var metrics: MetricsEndpoint?
  /// Hears of the boards the API writes whole, creates and deletes, when webhooks are on (the ops'
  /// changes reach it from the log that makes them durable).
  var webhooks: Webhooks?
  /// The HTTP API (`/api/v1`): its handlers reach the rooms through this driver (`APIHost`).
  let api: APIHandlers
  /// Reloads by result (`ReorderService.reload()`); service thread.
  var reloads = ReloadStatistics()
  /// Decides upgrades and counts connections per address.
  let admission: AdmissionControl
  /// Frees unloaded rooms off the service thread, at the lowest CPU priority: freeing a large
  /// board (thousands of items and their history) is work every connection would wait for there.
  let releaser = BackgroundQueue.make(name: "reorder-release")
  /// What each open websocket was admitted as.
  var admissions: [ConnectionID: Admission] = [:]
  /// Per write, as the log reports it (`logCommitWaited`): one node's from its records reaching
  /// the log to the service thread learning they are durable, i.e. what an op waits before its
  /// `applied` goes out; a cluster's from the op's `.append` to its reply (`ClusterAdapter`).
  /// Service thread only.
  private(set) var durableLatency = LatencyBuckets()

  /// Counts one append's wait for durability (`durableLatency`).
  func recordDurable(seconds: Double) { durableLatency.record(seconds: seconds) }
  /// The websockets' `history` reads, run one at a time in arrival order (each reads the store in
  /// several steps), so that a connection's answers come in the order it asked; the first runs.
  var historyReads: [HistoryRead] = []
  /// Carries out the registry's `.log` actions: one node's `LocalLog` or a cluster's
  /// `ClusterAdapter`; it answers through this driver (`PortAnswers`).
  let log: any LogPort
  /// Carries out the registry's `.presence` actions: one node's `LocalPresenceChannel` or a
  /// cluster's `ClusterAdapter`.
  let presence: any PresencePort
  /// Whether a cluster's parts reach Redis (`/healthz`).
  var redisHealth: ClusterHealth?

  init(
    registry: RoomRegistry, storage: any RoomStore, log: any LogPort, presence: any PresencePort,
    admission: AdmissionControl
  ) {
    self.registry = registry
    self.storage = storage
    self.log = log
    self.presence = presence
    self.admission = admission
    let defaults = ServerConfiguration()
    api = APIHandlers(
      storage: storage, rateLimit: APIRateLimit(rate: defaults.apiRequestsPerSecond),
      drainSeconds: defaults.drainSeconds)
    api.host = self
    api.boardCreated = { [unowned self] in boardCreated($0, $1) }
    api.boardDeleted = { [unowned self] in boardDeleted($0) }
    log.receiver = self
    presence.receiver = self
  }

  func connectionReceived(_ connection: ConnectionID, message: [UInt8], isBinary: Bool) {
    let handle = ConnectionHandle(connection.rawValue)
    let now = MonotonicClock.now()
    perform(registry.received(handle, message: message, isBinary: isBinary, now: now))
    // A hello or refresh may have set a token deadline.
    requestTick(due: registry.takeNewDeadline(), now: now)
    // Leading edge: a drag in a room that flushed no presence during the last interval goes out
    // now; otherwise a tick is asked for when the room is due (see `PresencePacing`).
    guard let transport else { return }
    let (actions, due) = registry.flushPresenceEarly(after: handle, now: now, busy: busy(transport))
    perform(actions)
    requestTick(due: due, now: now)
  }

  func connectionClosed(_ connection: ConnectionID) {
    if let admitted = admissions.removeValue(forKey: connection) { admission.closed(admitted) }
    let handle = ConnectionHandle(connection.rawValue)
    let now = MonotonicClock.now()
    let room = registry.roomName(of: handle)
    perform(registry.closed(handle, now: now))
    // A drag it left unfinished was cancelled: the cancel goes out at the room's next flush; a room
    // left empty is unloaded once idle long enough.
    if let room { requestTick(due: registry.nextTick(room: room, now: now), now: now) }
  }

  /// The transport's tick, asked for by `requestTick(due:now:)` (there is no periodic one): flushes
  /// the presence of every room due and unloads idle rooms, then asks for a tick when the next room
  /// is due.
  func transportTick() {
    guard let transport else { return }
    let now = MonotonicClock.now()
    perform(registry.tick(now: now, busy: busy(transport)))
    let unloaded = registry.takeUnloaded()
    if !unloaded.isEmpty { releaser.async { withExtendedLifetime(unloaded) {} } }
    requestTick(due: registry.nextTick(now: now), now: now)
  }

  /// Asks the transport for a tick at `due` (seconds, `MonotonicClock`), if any: presence and room
  /// unloading go on demand instead of on a periodic tick, which would wake the service loop even
  /// when nothing needs doing, and delay the fan-outs it fell into.
  ///
  /// Rounded up to a grid (an eighth of the presence interval, at most 5 ms), so that rooms due at
  /// nearly the same time flush in one pass of the service loop: a pass has a fixed cost (a wake-up
  /// and, on `--event-loop poll`, a poll of every socket, the main cost of a pass with many
  /// connections open).
  func requestTick(due: Double?, now: Double) {
    guard let due, let transport else { return }
    let grid = min(RoomsDriver.extraTickGrid, registry.presenceInterval / 8)
    transport.requestTick(afterSeconds: (due / grid).rounded(.up) * grid - now)
  }

  /// Whether a member is too busy for presence this tick (the transport decides: `isBusy`); when no
  /// connection waits for its socket, a constant (a flush asks about every member, and a lookup
  /// each would cost more than the flush's own work).
  private func busy(_ transport: any ServerTransport) -> (ConnectionHandle) -> Bool {
    guard transport.hasBacklog else { return { _ in false } }
    return { connection in transport.isBusy(ConnectionID(rawValue: connection.rawValue)) }
  }

  /// Ticks are asked for at multiples of at most this many seconds (see `requestTick(due:now:)`).
  static let extraTickGrid = 0.005

  /// Performs actions; the records (`.persist`) of one batch go to the log as one call per room.
  func perform(_ actions: [RoomAction]) {
    guard !actions.isEmpty else { return }
    var persists: [(room: String, ops: [LogEntry])] = []
    for action in actions {
      switch action {
      case .send(let connection, let bytes, let priority):
        transport?.send(bytes, to: ConnectionID(rawValue: connection.rawValue), priority: Self.priority(priority))
      case .broadcast(let connections, let bytes, let priority):
        // One shared buffer for every recipient (the bytes are copied once). An array, not a lazy
        // map: a generic sequence across the module boundary costs a witness call per recipient.
        transport?.broadcast(
          bytes, to: connections.map { ConnectionID(rawValue: $0.rawValue) }, priority: Self.priority(priority))
      case .persist(let room, let ops):
        if let last = persists.indices.last, persists[last].room == room {
          persists[last].ops.append(contentsOf: ops)
        } else {
          persists.append((room, ops))
        }
      case .snapshot(let room, let snapshot):
        flush(&persists)
        log.snapshot(room: room, snapshot: snapshot)
      case .load(let load):
        storage.reopen(room: load.room)
        load.run(on: storage) { [weak self] result in
          self?.transport?.post { [weak self] in self?.loaded(load.room, result) }
        }
      case .read(let read):
        storage.entries(room: read.room, after: read.after, limit: read.limit) { [weak self] result in
          self?.transport?.post { [weak self] in
            guard let self else { return }
            self.perform(self.registry.read(read, result: result))
          }
        }
      case .history(let read):
        sendHistory(read)
      case .close(let connection, let code, let reason):
        transport?.close(ConnectionID(rawValue: connection.rawValue), code: code, reason: reason)
      case .logLine(let level, let event, let fields):
        Log.log(level, event, fields)
      case .log(let work):
        log.perform(work)
      case .presence(let work):
        presence.perform(work)
      case .apiDone(let request, let results):
        api.apiAnswered(request, results: results, failure: nil)
      case .apiFailed(let request, let reason):
        api.apiAnswered(request, results: nil, failure: reason)
      }
    }
    flush(&persists)
    log.batchEnded()
  }

  /// A load answered (service thread): the room's waiting frames are handled, and a tick is asked
  /// for if the room now needs one (presence, or unloading when everyone left meanwhile, or a token
  /// deadline of a hello that waited for it).
  private func loaded(_ room: String, _ result: Result<PreparedRoom, RoomStoreError>) {
    let now = MonotonicClock.now()
    perform(registry.loaded(room: room, result: result, now: now))
    api.apiRoomLoaded(room, result)
    requestTick(due: registry.nextTick(room: room, now: now), now: now)
    requestTick(due: registry.takeNewDeadline(), now: now)
  }

  /// Hands each room's records of the batch so far to the log, one call per room.
  private func flush(_ persists: inout [(room: String, ops: [LogEntry])]) {
    for (room, ops) in persists { log.record(room: room, entries: ops) }
    persists.removeAll()
  }

  static func priority(_ p: FramePriority) -> SendPriority {
    switch p {
    case .data: return .data
    case .presence: return .presence
    }
  }
}
