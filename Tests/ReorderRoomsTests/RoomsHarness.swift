import ReorderBasics
import ReorderRooms

/// Drives a `RoomRegistry` with no sockets: performs its actions into per-connection inboxes and an
/// `InMemoryRoomStore` (loads and reads through the port; it answers at once unless made with
/// `.onDemand`, then `storage.answerPending()` delivers). Durability is manual (`makeDurable()`)
/// unless `autoDurable` is set. `@unchecked Sendable`: used from one test thread; the store's
/// completions run inside its calls or inside `answerPending()`.
final class RoomsHarness: @unchecked Sendable {
  let storage: InMemoryRoomStore
  var registry: RoomRegistry
  var now = 1_000.0
  var inbox: [ConnectionHandle: [JSONValue]] = [:]
  var priorities: [ConnectionHandle: [FramePriority]] = [:]
  var closed: [ConnectionHandle: (code: UInt16, reason: String)] = [:]
  var unpersisted: [(room: String, entries: [LogEntry])] = []
  var snapshots: [(room: String, seq: UInt64)] = []
  /// Byte counts of `snapshots`, in the same order.
  var snapshotSizes: [Int] = []
  /// Rooms the registry asked to load, in order.
  var loads: [String] = []
  /// Log events the registry returned, in order.
  var logs: [(level: Log.Level, event: String, fields: [(String, String)])] = []
  var autoDurable: Bool
  var limits: RoomLimits
  /// Frames delivered, by `type`, to every connection (counted without parsing).
  var frameCounts: [String: Int] = [:]
  /// Which connections' frames are parsed into `inbox` (all unless set; a storm test parses a few).
  var keepsInbox: (ConnectionHandle) -> Bool = { _ in true }

  let boards: RoomBoardFactory
  /// One node's log, as ReorderLocal's `LocalLog` runs it: appends answered at once, handed to the
  /// registry in append order after the actions that made them.
  var sequencer = LocalSequencer()
  var answers: [(append: LogAppend, result: Result<AppendReply, LogError>)] = []
  var answering = false
  /// Contents `putBoard` refused, in order.
  var refusals: [BoardContent.Refusal] = []
  /// The presence channel it shares with the harnesses made with the same hub (one process).
  var presenceHub: PresenceHub
  /// The HTTP API's requests answered (`.apiDone`, `.apiFailed`), by request.
  var apiAnswers: [UInt64: APIAnswer] = [:]
  enum APIAnswer: Equatable {
    case done([APIOpResult])
    case failed(String)
  }

  /// The compaction interval of the rooms (`RoomNode.compactEvery`).
  let compactEvery: UInt64

  init(
    limits: RoomLimits = RoomLimits(), boards: RoomBoardFactory = CRDTRoomBoard.factory,
    storage: InMemoryRoomStore = InMemoryRoomStore(), autoDurable: Bool = true,
    compactEvery: UInt64 = RoomNode.compactionInterval, node: String = "n1", sessionPrefix: String = "s",
    presenceHub: PresenceHub = PresenceHub()
  ) {
    self.presenceHub = presenceHub
    self.limits = limits
    self.boards = boards
    self.storage = storage
    self.autoDurable = autoDurable
    self.compactEvery = compactEvery
    registry = RoomRegistry(
      limits: limits, boards: boards, sessionPrefix: sessionPrefix,
      node: RoomNode(node: node, compactEvery: compactEvery, storedBy: InMemoryRoomStore.self)
    )
  }

  /// A fresh registry over the same storage (a server restart: another start of the node).
  func restart() {
    sequencer = LocalSequencer()
    presenceHub = PresenceHub()
    registry = RoomRegistry(
      limits: limits, boards: boards, sessionPrefix: "r",
      node: RoomNode(node: "n2", compactEvery: compactEvery, storedBy: InMemoryRoomStore.self))
    inbox = [:]
    closed = [:]
  }

  func perform(_ actions: [RoomAction]) {
    for action in actions {
      switch action {
      case .send(let c, let bytes, let p): deliver(c, bytes, p)
      case .broadcast(let cs, let bytes, let p): for c in cs { deliver(c, bytes, p) }
      case .persist(let room, let ops):
        storage.append(room: room, entries: ops) { _ in }
        unpersisted.append((room, ops))
      case .snapshot(let room, let snapshot):
        storage.saveSnapshot(room: room, snapshot: snapshot) { _ in }
        snapshots.append((room, snapshot.seq))
        snapshotSizes.append(snapshot.bytes.count)
      case .load(let load):
        loads.append(load.room)
        load.run(on: storage) { result in
          self.perform(self.registry.loaded(room: load.room, result: result, now: self.now))
        }
      case .read(let read):
        storage.entries(room: read.room, after: read.after, limit: read.limit) { result in
          self.perform(self.registry.read(read, result: result))
        }
      case .history(let read):
        read.run(on: storage, rfc3339: { String($0) }) { frame in self.deliver(read.connection, frame, .data) }
      case .close(let c, let code, let reason):
        closed[c] = (code, reason)
      case .logLine(let level, let event, let fields):
        logs.append((level, event, fields))
      case .log(.append(let append)):
        answers.append((append, sequencer.append(append)))
      case .log(.follow(let room, let after)):
        sequencer.follow(room: room, after: after)
      case .log(.unfollow(let room)):
        sequencer.unfollow(room: room)
      case .log(.readRange):
        break
      case .presence(let work):
        presenceHub.perform(work, node: registry.roomNode.node)
      case .apiDone(let request, let results):
        apiAnswers[request] = .done(results)
      case .apiFailed(let request, let reason):
        apiAnswers[request] = .failed(reason)
      }
    }
    if !answering {
      answering = true
      while !answers.isEmpty {
        let answer = answers.removeFirst()
        perform(registry.appended(answer.append, result: answer.result, now: now))
      }
      answering = false
      deliverPresence()
    }
    if autoDurable { makeDurable() }
  }

  /// `PUT` as the server runs it: the board built, written through the storage's `BoardWrites`
  /// with the room's ops held meanwhile, then taken by the room. Nil, with the refusal recorded,
  /// when the content is not a board. With `.onDemand` storage the write waits for
  /// `storage.answerPending()`.
  @discardableResult
  func putBoard(_ name: String, _ content: BoardContent, replace: Bool = false) -> (CreatedBoard, BoardPut?)? {
    let board: CreatedBoard
    switch registry.buildBoard(name, content: content, now: now) {
    case .failure(let refusal):
      refusals.append(refusal)
      return nil
    case .success(let built): board = built
    }
    registry.boardWriteBegan(room: name)
    nonisolated(unsafe) var answer: BoardPut?
    storage.putBoard(
      room: name, epoch: board.epoch, replace: replace, entries: board.entries, snapshot: board.snapshot,
      summary: board.summary
    ) { result in
      let outcome = try? result.get()
      answer = outcome
      let changed = outcome == .created || outcome == .replaced
      self.perform(self.registry.boardWriteEnded(room: name, changed: changed, epoch: board.epoch, now: self.now))
    }
    return (board, answer)
  }

  /// `DELETE` as the server runs it; whether the board existed (nil while the write waits).
  @discardableResult
  func deleteBoard(_ name: String) -> Bool? {
    registry.boardWriteBegan(room: name)
    nonisolated(unsafe) var answer: Bool?
    storage.deleteBoard(room: name) { result in
      let existed = (try? result.get()) ?? false
      answer = existed
      self.perform(self.registry.boardWriteEnded(room: name, changed: existed, epoch: nil, now: self.now))
    }
    return answer
  }

  /// Hands what the presence channel delivered to this node to its registry.
  func deliverPresence() {
    for delivery in presenceHub.take(node: registry.roomNode.node) {
      switch delivery {
      case .roster(_, let room, let entries):
        perform(registry.roster(room: room, entries: entries, now: now))
      case .message(_, let room, let from, let message):
        perform(registry.presenceReceived(room: room, node: from, message: message, now: now))
      }
    }
  }

  /// The names of the rooms in storage (for `createDemoRooms`).
  func storedRooms() -> Set<String> {
    nonisolated(unsafe) var names: [String] = []
    storage.roomNames { names = (try? $0.get()) ?? [] }
    storage.answerPending()
    return Set(names)
  }

  func deliver(_ c: ConnectionHandle, _ bytes: [UInt8], _ p: FramePriority) {
    guard closed[c] == nil else { return }
    frameCounts[RoomsHarness.type(of: bytes), default: 0] += 1
    guard keepsInbox(c) else { return }
    inbox[c, default: []].append(try! JSONValue.parse(bytes))
    priorities[c, default: []].append(p)
  }

  /// The `type` of an encoded server frame (they all begin `{"type":"<type>"`).
  static func type(of bytes: [UInt8]) -> String {
    let prefix = Array(#"{"type":""#.utf8)
    guard bytes.starts(with: prefix), let end = bytes[prefix.count...].firstIndex(of: UInt8(ascii: "\"")) else {
      return "?"
    }
    return String(decoding: bytes[prefix.count..<end], as: UTF8.self)
  }

  /// Frames delivered in total.
  var totalFrames: Int { frameCounts.values.reduce(0, +) }

  /// Makes only the first `count` pending appends durable (the store reports in append order).
  func makeDurable(count: Int) {
    let batch = Array(unpersisted.prefix(count))
    unpersisted.removeFirst(min(count, unpersisted.count))
    for (room, entries) in batch { perform(registry.durable(room: room, upTo: entries.map(\.seq).max() ?? 0)) }
  }

  func makeDurable() {
    let batch = unpersisted
    unpersisted = []
    var highest: [String: UInt64] = [:]
    for (room, entries) in batch { highest[room] = max(highest[room] ?? 0, entries.map(\.seq).max() ?? 0) }
    for (room, seq) in highest.sorted(by: { $0.key < $1.key }) { perform(registry.durable(room: room, upTo: seq)) }
  }

  func open(_ id: UInt64, room: String = "r") -> ConnectionHandle {
    let c = ConnectionHandle(id)
    perform(registry.opened(c, room: room, now: now))
    return c
  }

  func send(_ c: ConnectionHandle, _ text: String) {
    perform(registry.received(c, message: Array(text.utf8), isBinary: false, now: now))
  }

  func close(_ c: ConnectionHandle) {
    perform(registry.closed(c, now: now))
  }

  /// Connections the driver would report as busy (not drained).
  var busy: Set<ConnectionHandle> = []

  func tick(advancing seconds: Double = 1.0 / 30) {
    now += seconds
    let busy = self.busy
    perform(registry.tick(now: now) { busy.contains($0) })
  }

  /// Opens a connection and says hello; returns it (its inbox holds the welcome).
  @discardableResult
  /// With `since`, the hello carries `epoch` (default: the room's own, as a client that kept it would).
  func join(
    _ id: UInt64, room: String = "r", client: String? = nil, name: String = "N", since: UInt64? = nil,
    epoch: String? = nil
  ) -> ConnectionHandle {
    let c = open(id, room: room)
    let roomEpoch = epoch ?? registry.room(room)?.epoch ?? ""
    let sinceText = since.map { ",\"since\":\($0),\"epoch\":\"\(roomEpoch)\"" } ?? ""
    let clientID = client ?? "client\(id)"
    send(
      c,
      ##"{"type":"hello","room":"\##(room)","client":"\##(clientID)","name":"\##(name)","color":"#123456"\##(sinceText)}"##
    )
    return c
  }

  /// Takes and returns the frames received by `c`.
  func take(_ c: ConnectionHandle) -> [JSONValue] {
    defer {
      inbox[c] = []
      priorities[c] = []
    }
    return inbox[c] ?? []
  }

  /// The frames of a type received by `c` (without taking them).
  func frames(_ c: ConnectionHandle, type: String) -> [JSONValue] {
    (inbox[c] ?? []).filter { $0["type"] == .string(type) }
  }

  /// Item ids of a list in the room's current board.
  func items(_ list: String, room: String = "r") -> [String] {
    guard case .array(let lists)? = registry.room(room)?.boardJSON()["lists"] else { return [] }
    for l in lists where l["id"] == .string(list) {
      guard case .array(let items)? = l["items"] else { return [] }
      return items.compactMap { $0["id"]?.stringValue }
    }
    return []
  }

  /// Creates list `l` with items `ids` through connection `c`.
  func seed(_ c: ConnectionHandle, list: String = "l", ids: [String], layout: String = "list") {
    send(
      c,
      #"{"type":"op","id":"seed-\#(list)","op":{"kind":"createList","list":"\#(list)","title":"L","layout":"\#(layout)"}}"#
    )
    var previous: String?
    for id in ids {
      let after = previous.map { ",\"after\":\"\($0)\"" } ?? ""
      send(
        c,
        #"{"type":"op","id":"seed-\#(id)","op":{"kind":"insert","list":"\#(list)","item":"\#(id)","fields":{"title":"\#(id)"}\#(after)}}"#
      )
      previous = id
    }
  }
}

/// The two board models the room tests run on.
enum BoardKind: String, CaseIterable, Sendable, CustomStringConvertible {
  case plain, crdt

  var factory: RoomBoardFactory { self == .plain ? .plain : CRDTRoomBoard.factory }
  var description: String { rawValue }
}

/// The presence channel of the harnesses of one process (`LocalPresence`), with what it delivered
/// to each node and that node has not taken yet.
final class PresenceHub: @unchecked Sendable {
  var channel = LocalPresence()
  var pending: [String: [LocalPresence.Delivery]] = [:]

  /// Performs `node`'s action; its deliveries wait for their nodes.
  func perform(_ action: PresenceAction, node: String) {
    for delivery in channel.perform(action, node: node) { pending[delivery.to, default: []].append(delivery) }
  }

  /// What waits for `node`, in order.
  func take(node: String) -> [LocalPresence.Delivery] {
    pending.removeValue(forKey: node) ?? []
  }
}
