import ReorderRooms

/// What the API's handlers need of the server that runs the rooms (its driver): the registry, and
/// the service thread. Every member but `post` is used on the service thread.
public protocol APIHost: AnyObject {
  /// The rooms.
  var registry: RoomRegistry { get }
  /// Performs actions the rooms returned.
  func perform(_ actions: [RoomAction])
  /// Asks for a tick of the rooms at `due` (the registry's clock), if not nil.
  func requestTick(due: Double?, now: Double)
  /// Runs `work` on the service thread soon (any thread).
  func post(_ work: @escaping @Sendable () -> Void)
}

/// The stored boards as `GET /api/v1/boards` lists them: a page of names, each with its summary.
/// Two implementations: one node's SQLite (`StoreBoardList`) and a cluster's Redis
/// (`ClusterBoardList`).
public protocol BoardList: AnyObject, Sendable {
  /// Up to `limit` boards with names after `after` (from the first without it), by name.
  func list(
    after: String?, limit: Int, completion: @escaping @Sendable (Result<[ListedBoard], any Error>) -> Void)
}

/// A board of the list.
public struct ListedBoard: Sendable {
  /// The room name.
  public var room: String
  /// Its summary, nil when it is gone (deleted after the names were read).
  public var summary: BoardSummary?
  /// When the summary was written (milliseconds since 1970).
  public var updatedMilliseconds: Int64
  /// Its sessions on every node, where the list knows them (a cluster's rosters); nil: this
  /// node's count.
  public var online: Int?
  /// Whether its part of the storage could not be reached (the board is named in `unavailable`).
  public var unreachable: Bool

  /// A listing.
  public init(
    room: String, summary: BoardSummary?, updatedMilliseconds: Int64, online: Int? = nil, unreachable: Bool = false
  ) {
    self.room = room
    self.summary = summary
    self.updatedMilliseconds = updatedMilliseconds
    self.online = online
    self.unreachable = unreachable
  }
}
