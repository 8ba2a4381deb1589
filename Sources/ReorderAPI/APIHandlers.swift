import ReorderBasics
import ReorderRooms
import ReorderTransport

/// The HTTP API (`/api/v1`, docs/API.md): keys, rate limits, routes and their handlers, the same
/// on one node and in a cluster. The handlers run on the service thread and reach the rooms
/// through their host (the server's driver); storage work runs on the storage's threads and comes
/// back through `APIHost.post`. Nothing here waits. `@unchecked Sendable`: all state is confined
/// to the service thread; the storage's completions only read `host` (set once before serving) to
/// `post` back.
///
/// - reads: `APIHandlers+Reads.swift` (a board, its ops, disconnects), `+History.swift`,
///   `+List.swift`;
/// - writes: `+Writes.swift` (`PUT`, `DELETE`, `POST …/ops`), `+Ops.swift` (requests waiting on
///   the rooms).
public final class APIHandlers: @unchecked Sendable {
  /// The driver that runs the rooms; set once both are made.
  public weak var host: (any APIHost)?
  /// The rooms' storage (reads of boards, ops and history that do not open a room).
  let storage: any RoomStore
  /// Whole-board writes (`PUT`, `DELETE`); nil for a storage without them (503).
  public var boardWrites: (any BoardWrites)?
  /// The stored boards' list; nil for a storage without one (503).
  public var boardList: (any BoardList)?
  /// The API keys; nil turns the API off (404).
  public var apiKeys: APIKeys?
  /// Requests per second and key.
  public var apiRateLimit: APIRateLimit
  /// Boards as the server's rooms decode them (reads of stored boards).
  public var boardFactory: RoomBoardFactory = CRDTRoomBoard.factory
  /// Requests by route: counts, statuses, durations (`/metrics`).
  public let apiRequests = APIRequestMeter()
  /// `POST /api/v1/drain`'s answer: the seconds the drain gives clients.
  public var drainSeconds: Int
  /// Starts a drain (`POST /api/v1/drain`).
  public var requestDrain: (@Sendable () -> Void)?
  /// A board was created or replaced (stored): the one place to tell others (webhooks).
  public var boardCreated: ((String, CreatedBoard) -> Void)?
  /// A board was deleted (stored).
  public var boardDeleted: ((String) -> Void)?
  /// `POST …/ops` requests waiting for their room to load.
  var waiters = APIWaiters()
  /// Requests, replica reads and board-write answers waiting on the rooms.
  var waits = APIRequestWaits()

  /// Handlers over `storage`, with the API off until `apiKeys` is set.
  public init(storage: any RoomStore, rateLimit: APIRateLimit, drainSeconds: Int) {
    self.storage = storage
    self.apiRateLimit = rateLimit
    self.drainSeconds = drainSeconds
  }

  /// The rooms (the host's).
  var registry: RoomRegistry { host!.registry }

  /// Whether reads of ops and history are answered from the room's replica here: where the
  /// storage keeps each op as its maker made it (a cluster's log), not resolved.
  var readsReplicas: Bool { !registry.roomNode.keepsResolvedOps }

  func perform(_ actions: [RoomAction]) { host?.perform(actions) }

  func requestTick(due: Double?, now: Double) { host?.requestTick(due: due, now: now) }
}
