/// Who does what in a run: rooms of clients, which clients drag and which move, which item each
/// drag holds. Pure arithmetic on the configuration, so tests can check it without sockets.
struct RoomPlan: Sendable {
  /// Room index of each client (client `i` is in room `i % rooms`).
  let roomOfClient: [Int]
  /// Clients of each room, in order; the first one seeds the room.
  let clientsOfRoom: [[Int]]
  /// Clients that drag from the start, in order (spread evenly over the rooms).
  let initialDraggers: [Int]
  /// Clients that commit moves.
  let movers: [Int]
  /// Draggers per room when every client that may ever drag does (sizes the seeded items).
  let maxDraggersPerRoom: Int

  /// Plans `configuration`; `maxDraggers` bounds a ramp (defaults to the configured draggers).
  init(_ configuration: LoadConfiguration, maxDraggers: Int? = nil, movers: Int? = nil) {
    let rooms = max(1, configuration.rooms)
    let clients = max(1, configuration.clients)
    roomOfClient = (0..<clients).map { $0 % rooms }
    var members = Array(repeating: [Int](), count: rooms)
    for client in 0..<clients { members[client % rooms].append(client) }
    clientsOfRoom = members
    initialDraggers = Array(0..<configuration.effectiveDraggers)
    let moverCount = configuration.moveRate > 0 ? min(clients, movers ?? clients) : 0
    self.movers = Array(0..<moverCount)
    let most = min(clients, maxDraggers ?? configuration.effectiveDraggers)
    maxDraggersPerRoom = (most + rooms - 1) / rooms
  }

  /// Seeder (first client) of each room.
  var seeders: [Int] { clientsOfRoom.map { $0[0] } }

  /// Position of `client` among the clients of its room (0 for the seeder).
  func positionInRoom(_ client: Int) -> Int { client / clientsOfRoom.count }

  /// Clients of the room of `client` other than itself: the receivers of its drag.
  func receivers(of client: Int) -> Int { clientsOfRoom[roomOfClient[client]].count - 1 }
}

/// What a room offers to drag and move, learned by its seeder.
struct RoomBoard: Sendable, Equatable {
  /// The list the tool works in.
  var list: String
  /// Items of that list, in order.
  var items: [String]
}
