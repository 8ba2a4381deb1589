/// Who does what in a run: rooms of clients, which clients drag and which move, which item each
/// drag holds. Pure arithmetic on the configuration, so tests can check it without sockets.
struct RoomPlan: Sendable {
  /// Room index of each client (client `i` is in room `i % rooms`).
  let roomOfClient: [Int]
  /// Clients of each room, in order; the first one seeds the room.
  let clientsOfRoom: [[Int]]
  /// Node (index into the `--url` list) each client connects to: round-robin by the client's
  /// position in its room, so every room's clients are split evenly over the nodes (with one room
  /// that is the client index: 1,000 clients on 2 nodes are 500 on each, clients 0, 2, 4… on the
  /// first), and the seeder of every room is on the first node. With `affinity` a room's clients
  /// are all on node `room % nodes`.
  let nodeOfClient: [Int]
  /// Clients assigned to each node, in `--url` order.
  let clientsPerNode: [Int]
  /// Clients that drag from the start, in order (spread evenly over the rooms).
  let initialDraggers: [Int]
  /// Clients that commit moves.
  let movers: [Int]
  /// Draggers per room when every client that may ever drag does (sizes the seeded items).
  let maxDraggersPerRoom: Int
  /// Clients that read slowly (`--slow-readers`): `slowReaders × clients` rounded, taken evenly
  /// from the clients that neither drag (at any ramp step) nor seed a room, fewer if there are
  /// not enough of those.
  let slowReaders: [Int]

  /// Plans `configuration` over `nodes` node URLs; `maxDraggers` bounds a ramp (defaults to the
  /// configured draggers).
  init(_ configuration: LoadConfiguration, nodes: Int = 1, maxDraggers: Int? = nil, movers: Int? = nil) {
    let rooms = max(1, configuration.rooms)
    let clients = max(1, configuration.clients)
    roomOfClient = (0..<clients).map { $0 % rooms }
    var members = Array(repeating: [Int](), count: rooms)
    for client in 0..<clients { members[client % rooms].append(client) }
    clientsOfRoom = members
    let nodes = max(1, nodes)
    nodeOfClient = (0..<clients).map { configuration.affinity ? ($0 % rooms) % nodes : ($0 / rooms) % nodes }
    var perNode = Array(repeating: 0, count: nodes)
    for node in nodeOfClient { perNode[node] += 1 }
    clientsPerNode = perNode
    initialDraggers = Array(0..<configuration.effectiveDraggers)
    let moverCount = configuration.moveRate > 0 ? min(clients, movers ?? clients) : 0
    self.movers = Array(0..<moverCount)
    let most = min(clients, maxDraggers ?? configuration.effectiveDraggers)
    maxDraggersPerRoom = (most + rooms - 1) / rooms
    let wanted = Int((configuration.slowReaders * Double(clients)).rounded())
    let eligible = (0..<clients).filter { $0 >= most && $0 >= rooms }
    let count = min(wanted, eligible.count)
    slowReaders = (0..<count).map { eligible[$0 * eligible.count / count] }
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
