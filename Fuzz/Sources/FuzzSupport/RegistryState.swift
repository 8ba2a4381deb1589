@testable import ReorderRooms

/// Every stored property of a `RoomRegistry` that changes while it runs, copied out (the rooms
/// and connections are values, so a copy is cheap until one side changes), to set the registry
/// back to that moment (`FuzzRooms.save()` / `restore()`).
///
/// The properties fixed when it is made (limits, board factory, session prefix, pacing, verifier,
/// wall clock)
/// are not copied. `init` checks, by reflection, that the registry has no stored property outside
/// these two sets: a property added to `RoomRegistry` later stops the target at its start until
/// it is listed here, rather than leaking state from one input into the next.
struct RegistryState {
  static let copied: Set<String> = [
    "rooms", "loading", "connections", "nextSession", "attached", "counters", "loadsCompleted", "roomInstances",
    "loadsFailed",
    "messagesReceived", "deadlines", "authFailures", "log", "upgrading", "unloaded", "dragAudience",
  ]
  static let fixed: Set<String> = [
    "limits", "boards", "sessionPrefix", "presencePacing", "accessVerifier", "wallClock",
  ]

  let rooms: [String: Room]
  let loading: [String: [ConnectionHandle]]
  let connections: [ConnectionHandle: RoomRegistry.Connection]
  let nextSession: UInt64
  let attached: [String: Int]
  let counters: RoomCounters
  let loadsCompleted: Int
  let roomInstances: UInt64
  let loadsFailed: Int
  let messagesReceived: [String: Int]
  let deadlines: DeadlineQueue
  let authFailures: [String: Int]
  let log: LogState
  let upgrading: [String: [ConnectionHandle]]
  let unloaded: [Room]
  let dragAudience: Int

  init(_ registry: RoomRegistry) {
    let stored = Set(Mirror(reflecting: registry).children.compactMap(\.label))
    fuzzCheck(
      stored == Self.copied.union(Self.fixed),
      "RoomRegistry's stored properties changed: list \(stored.subtracting(Self.copied.union(Self.fixed)).sorted()) "
        + "in RegistryState (copied or fixed), drop \(Self.copied.union(Self.fixed).subtracting(stored).sorted())")
    rooms = registry.rooms
    loading = registry.loading
    connections = registry.connections
    nextSession = registry.nextSession
    attached = registry.attached
    counters = registry.counters
    loadsCompleted = registry.loadsCompleted
    roomInstances = registry.roomInstances
    loadsFailed = registry.loadsFailed
    messagesReceived = registry.messagesReceived
    deadlines = registry.deadlines
    authFailures = registry.authFailures
    log = registry.log
    upgrading = registry.upgrading
    unloaded = registry.unloaded
    dragAudience = registry.dragAudience
  }

  /// Sets `registry` back to this state.
  func restore(_ registry: RoomRegistry) {
    registry.rooms = rooms
    registry.loading = loading
    registry.connections = connections
    registry.nextSession = nextSession
    registry.attached = attached
    registry.counters = counters
    registry.loadsCompleted = loadsCompleted
    registry.roomInstances = roomInstances
    registry.loadsFailed = loadsFailed
    registry.messagesReceived = messagesReceived
    registry.deadlines = deadlines
    registry.authFailures = authFailures
    registry.log = log
    registry.upgrading = upgrading
    registry.unloaded = unloaded
    registry.dragAudience = dragAudience
  }
}
