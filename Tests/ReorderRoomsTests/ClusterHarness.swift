import ReorderBasics
import ReorderCRDT

@testable import ReorderRooms

/// Two or three registries in cluster mode sharing one `FakeSharedLog`, driven by hand: appends,
/// their replies, the log's stream, read-ranges, presence messages and roster reads each wait in
/// a queue until a test delivers them (`settle()` delivers everything until nothing moves), so a
/// test chooses the interleaving. No sockets, no threads, a hand-advanced clock.
final class ClusterHarness {
  /// An answer to one of the HTTP API's requests (`RoomAction.apiDone`, `.apiFailed`).
  enum APIAnswer: Equatable {
    case apiDone(request: UInt64, results: [APIOpResult])
    case apiFailed(request: UInt64, reason: String)
  }

  final class Node {
    let replica: UInt64
    var name: String
    var registry: RoomRegistry
    var inbox: [ConnectionHandle: [JSONValue]] = [:]
    var closed: [ConnectionHandle: (code: UInt16, reason: String)] = [:]
    /// Appends not yet executed, and executed ones whose reply is not yet delivered.
    var appends: [LogAppend] = []
    var replies: [(append: LogAppend, result: Result<AppendReply, LogError>)] = []
    var reads: [(room: String, after: UInt64, through: UInt64)] = []
    /// Rooms followed, with the last seq the stream delivered.
    var following: [String: UInt64] = [:]
    /// The answers of the HTTP API's requests (`.apiDone`, `.apiFailed`), in order.
    var apiAnswers: [APIAnswer] = []
    /// Presence messages of other nodes not yet delivered.
    var presence: [(room: String, node: String, payload: [UInt8])] = []
    var logs: [(level: Log.Level, event: String)] = []
    /// Every snapshot the node returned (the log keeps one of them), in order.
    var snapshots: [RoomSnapshot] = []

    init(name: String, replica: UInt64, registry: RoomRegistry) {
      self.name = name
      self.replica = replica
      self.registry = registry
    }

    /// `applied` frames received by a connection, in order.
    func applied(_ c: ConnectionHandle) -> [JSONValue] { (inbox[c] ?? []).filter { $0["type"] == .string("applied") } }

    /// Frames of one type received by a connection.
    func frames(_ c: ConnectionHandle, _ type: String) -> [JSONValue] {
      (inbox[c] ?? []).filter { $0["type"] == .string(type) }
    }
  }

  let log = FakeSharedLog()
  var nodes: [Node] = []
  var now = 1_000.0
  let limits: RoomLimits

  /// test crosses boundaries.
  let compactEvery: UInt64
  var boots = 0

  init(nodes count: Int, limits: RoomLimits = RoomLimits(), compactEvery: UInt64? = nil) {
    self.limits = limits
    self.compactEvery = compactEvery ?? UInt64(limits.snapshotEvery)
    for i in 0..<count {
      let name = String(UnicodeScalar(UInt8(ascii: "A") + UInt8(i)))
      nodes.append(
        Node(name: name, replica: UInt64(10 + i), registry: makeRegistry(name: name, replica: UInt64(10 + i))))
    }
  }

  func makeRegistry(name: String, replica: UInt64) -> RoomRegistry {
    RoomRegistry(
      limits: limits, boards: CRDTRoomBoard.factory(replica: ReplicaID(replica)), sessionPrefix: "\(name)-s",
      node: RoomNode(node: name, compactEvery: compactEvery))
  }

  /// The node starts again (a new process: new node id, same replica); its connections are gone
  /// and what was in flight to it is lost.
  func restart(_ i: Int) {
    boots += 1
    let node = nodes[i]
    node.name = "\(node.name.prefix(1))\(boots)"
    node.registry = makeRegistry(name: node.name, replica: node.replica)
    node.inbox = [:]
    node.closed = [:]
    node.appends = []
    node.replies = []
    node.reads = []
    node.following = [:]
    node.presence = []
  }

  // MARK: Driving

  func perform(_ i: Int, _ actions: [RoomAction]) {
    let node = nodes[i]
    for action in actions {
      switch action {
      case .send(let c, let bytes, _): deliver(node, c, bytes)
      case .broadcast(let cs, let bytes, _): for c in cs { deliver(node, c, bytes) }
      case .close(let c, let code, let reason): node.closed[c] = (code, reason)
      case .history(let read):
        // The page comes from the replica; the base is not rebuilt here (no store).
        if let page = read.page { deliver(node, read.connection, page.frame(base: nil, rfc3339: { String($0) })) }
      case .logLine(let level, let event, _): node.logs.append((level, event))
      case .load(let load):
        let result = Result { () throws(RoomStoreError) in
          try load.prepare(log.history(room: load.room, remembering: load.remembering))
        }
        perform(i, node.registry.loaded(room: load.room, result: result, now: now))
      case .snapshot(let room, let snapshot):
        node.snapshots.append(snapshot)
        log.saveSnapshot(room: room, seq: snapshot.seq, bytes: snapshot.bytes)
      case .read(let read):
        let result = log.range(room: read.room, after: read.after, through: read.after + UInt64(read.limit))
          .map { $0.map(\.logEntry) }.mapError { _ in RoomStoreError.unavailable("shared log") }
        perform(i, node.registry.read(read, result: result))
      case .persist: preconditionFailure("cluster mode never persists to the single-node store")
      case .log(let work): log(i, work)
      case .presence(let work): presence(i, work)
      case .apiDone(let request, let results): node.apiAnswers.append(.apiDone(request: request, results: results))
      case .apiFailed(let request, let reason): node.apiAnswers.append(.apiFailed(request: request, reason: reason))
      }
    }
  }

  func log(_ i: Int, _ work: LogAction) {
    let node = nodes[i]
    switch work {
    case .append(let append): node.appends.append(append)
    case .readRange(let room, let after, let through): node.reads.append((room, after, through))
    case .follow(let room, let after): node.following[room] = after
    case .unfollow(let room): node.following[room] = nil
    }
  }

  /// Presence as Redis has it: a publish reaches the nodes following the room (as bytes), the
  /// roster is read when the room is followed and when a test says (`readRoster`), and lists what it holds (a crashed node's
  /// sessions until a test removes them, as if they expired).
  func presence(_ i: Int, _ work: PresenceAction) {
    let node = nodes[i]
    switch work {
    case .follow(let room):
      // The roster is read as soon as the room is followed (as `ClusterAdapter` does).
      let entries = (log.rooms[room]?.roster ?? [:]).sorted { $0.key < $1.key }.map(\.value)
      perform(i, node.registry.roster(room: room, entries: entries, now: now))
    case .unfollow: break
    case .publish(let room, let message):
      for other in nodes where other !== node && other.following[room] != nil {
        other.presence.append((room, node.name, message.encoded()))
      }
    case .rosterJoin(let room, let session, let peer): log.rooms[room, default: .init()].roster[session] = peer
    case .rosterLeave(let room, let session): log.rooms[room]?.roster[session] = nil
    }
  }

  func deliver(_ node: Node, _ c: ConnectionHandle, _ bytes: [UInt8]) {
    guard node.closed[c] == nil else { return }
    node.inbox[c, default: []].append(try! JSONValue.parse(bytes))
  }

  /// Executes node `i`'s queued appends against the log (replies wait).
  func executeAppends(_ i: Int, count: Int = .max) {
    let node = nodes[i]
    let batch = node.appends.prefix(count)
    node.appends.removeFirst(batch.count)
    for append in batch { node.replies.append((append, log.append(append))) }
  }

  /// Delivers node `i`'s append replies.
  func deliverReplies(_ i: Int, count: Int = .max) {
    let node = nodes[i]
    let batch = node.replies.prefix(count)
    node.replies.removeFirst(batch.count)
    for (append, result) in batch { perform(i, node.registry.appended(append, result: result, now: now)) }
  }

  /// Delivers up to `limit` new entries of each followed room from the log's stream to node `i`.
  func deliverStream(_ i: Int, limit: Int = .max) {
    let node = nodes[i]
    for (room, cursor) in node.following.sorted(by: { $0.key < $1.key }) {
      let entries = log.entries(room: room, after: cursor, limit: limit)
      guard let last = entries.last else { continue }
      node.following[room] = last.seq
      perform(i, node.registry.logged(room: room, entries: entries, now: now))
    }
  }

  /// Answers node `i`'s read-ranges.
  func answerReads(_ i: Int) {
    let node = nodes[i]
    let batch = node.reads
    node.reads = []
    for read in batch {
      switch log.range(room: read.room, after: read.after, through: read.through) {
      case .success(let entries): perform(i, node.registry.logged(room: read.room, entries: entries, now: now))
      case .failure: perform(i, node.registry.rangeFailed(room: read.room))
      }
    }
  }

  /// Delivers the presence messages other nodes published to node `i`.
  func deliverPresence(_ i: Int) {
    let node = nodes[i]
    let batch = node.presence
    node.presence = []
    for message in batch {
      perform(
        i, node.registry.presenceReceived(room: message.room, node: message.node, payload: message.payload, now: now))
    }
  }

  /// Node `i` reads the roster of every room it follows.
  func readRoster(_ i: Int) {
    let node = nodes[i]
    for room in node.following.keys.sorted() {
      let entries = (log.rooms[room]?.roster ?? [:]).sorted { $0.key < $1.key }.map(\.value)
      perform(i, node.registry.roster(room: room, entries: entries, now: now))
    }
  }

  /// A tick of every node, the clock moved on by `seconds` first.
  func tick(_ seconds: Double = 0.05) {
    now += seconds
    for i in nodes.indices { perform(i, nodes[i].registry.tick(now: now)) }
  }

  /// Delivers everything, node by node, until nothing is left to deliver.
  func settle() {
    for _ in 0..<1_000 {
      var moved = false
      for i in nodes.indices {
        let node = nodes[i]
        let before = (node.appends.count, node.replies.count, node.reads.count, node.presence.count, node.following)
        executeAppends(i)
        deliverReplies(i)
        answerReads(i)
        deliverStream(i)
        deliverPresence(i)
        let after = (node.appends.count, node.replies.count, node.reads.count, node.presence.count, node.following)
        if before != after || !node.appends.isEmpty || !node.replies.isEmpty { moved = true }
      }
      tick()
      if !moved && nodes.allSatisfy({ $0.appends.isEmpty && $0.replies.isEmpty && $0.presence.isEmpty }) { return }
    }
    preconditionFailure("the cluster did not settle")
  }

  // MARK: Clients

  /// Opens connection `id` on node `i` and says hello in `room` as client `c<id>`.
  @discardableResult
  func join(
    _ i: Int, _ id: UInt64, room: String = "r", client: String? = nil, since: UInt64? = nil, epoch: String? = nil
  ) -> ConnectionHandle {
    let c = ConnectionHandle(id)
    perform(i, nodes[i].registry.opened(c, room: room, now: now))
    let client = client ?? "c\(id)"
    var hello = ##"{"type":"hello","room":"\##(room)","client":"\##(client)","name":"n\##(id)","color":"#123456""##
    if let since { hello += #","since":\#(since)"# }
    if let epoch { hello += #","epoch":"\#(epoch)""# }
    send(i, c, hello + "}")
    return c
  }

  func send(_ i: Int, _ c: ConnectionHandle, _ text: String) {
    perform(i, nodes[i].registry.received(c, message: Array(text.utf8), isBinary: false, now: now))
    let early = nodes[i].registry.flushPresenceEarly(after: c, now: now)
    perform(i, early.actions)
  }

  func op(_ i: Int, _ c: ConnectionHandle, _ id: String, _ op: String) {
    send(i, c, #"{"type":"op","id":"\#(id)","op":\#(op)}"#)
  }

  func leave(_ i: Int, _ c: ConnectionHandle) {
    perform(i, nodes[i].registry.closed(c, now: now))
  }

  /// The room's board on node `i`.
  func board(_ i: Int, room: String = "r") -> JSONValue? { nodes[i].registry.room(room)?.boardJSON() }

  /// The room as a fresh load from the log would have it.
  func freshBoard(room: String = "r") throws -> JSONValue {
    let load = RoomLoad(room: room, boards: CRDTRoomBoard.factory(replica: ReplicaID(99)), limits: limits)
    var sharedLoad = load
    sharedLoad.node = "fresh"
    sharedLoad.compactEvery = compactEvery
    return try sharedLoad.prepare(log.history(room: room, remembering: 100)).boardJSON()
  }
}
