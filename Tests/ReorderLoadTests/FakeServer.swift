import Dispatch
import Foundation
import ReorderBasics

@testable import ReorderLoad

/// An in-memory stand-in for a server, so the runner can be tested without sockets: either a
/// mirror (every message to every connection of the same room, sender included) or a minimal
/// rooms server (hello → welcome, op → applied to all, drags coalesced per tick to the others).
/// A room is the URL's path: connections to different origins (the nodes of a cluster) share it,
/// as nodes sharing rooms through Redis do.
final class FakeServer: @unchecked Sendable {
  enum Mode { case mirror, rooms }
  /// How joins are announced to the members of a room: not at all, one `peer` frame per join
  /// to every member (as the server does in a small room), or one `peers` frame per tick with
  /// every join of that tick and a bounded `welcome` with `peer_count` (the coalesced roster).
  enum Roster { case none, peer, peers }

  let mode: Mode
  let roster: Roster
  /// Connections beyond this are closed at once with 1013 (nil: no limit).
  let maxConnections: Int?
  /// A connection that stopped reading with more than this many frames waiting for it is closed
  /// with 1008 `outgoing queue overflow`, as the server closes a client that does not read
  /// (nil: never).
  let maxHeldFrames: Int?
  let queue = DispatchQueue(label: "fake-server")
  /// Server queue only: `hello`s per room (the URL) and ops received.
  private(set) var hellos: [String: Int] = [:]
  /// Server queue only: connections opened per origin (`ws://HOST:PORT`).
  private var openedByOrigin: [String: Int] = [:]
  private(set) var opsReceived = 0
  private var joinedThisTick: [String: [String]] = [:]
  private var helloed: Set<Int> = []
  private var connections: [Int: FakeConnection] = [:]
  private var roomOf: [Int: String] = [:]
  private var seqs: [String: Int] = [:]
  private var latestDrag: [String: [Int: String]] = [:]
  private var timer: DispatchSourceTimer?
  private var items = (1...30).map { "i\($0)" }

  init(mode: Mode, roster: Roster = .none, maxConnections: Int? = nil, maxHeldFrames: Int? = nil) {
    self.mode = mode
    self.roster = roster
    self.maxConnections = maxConnections
    self.maxHeldFrames = maxHeldFrames
    if mode == .rooms {
      let timer = DispatchSource.makeTimerSource(queue: queue)
      timer.schedule(deadline: .now() + .milliseconds(33), repeating: .milliseconds(33))
      timer.setEventHandler { [weak self] in self?.tick() }
      timer.resume()
      self.timer = timer
    }
  }

  func stop() { queue.sync { timer?.cancel() } }

  /// `hello`s received for URLs ending in `room`.
  func hellos(endingIn room: String) -> Int {
    queue.sync { hellos.filter { $0.key.hasSuffix(room) }.values.reduce(0, +) }
  }

  /// Connections opened to `origin` (`ws://HOST:PORT`), over every room.
  func connections(to origin: String) -> Int { queue.sync { openedByOrigin[origin] ?? 0 } }

  /// Splits `ws://HOST:PORT/path` into origin and path (the room).
  static func split(_ url: String) -> (origin: String, room: String) {
    guard let scheme = url.range(of: "://") else { return ("", url) }
    let slash = url[scheme.upperBound...].firstIndex(of: "/") ?? url.endIndex
    return (String(url[..<slash]), String(url[slash...]))
  }

  /// Ops received, over every room.
  func ops() -> Int { queue.sync { opsReceived } }

  /// A client context whose service thread is its own serial queue.
  func makeContext() -> any LoadSocketContext { FakeContext(server: self) }

  func open(_ connection: FakeConnection) {
    queue.async {
      if let limit = self.maxConnections, self.connections.count >= limit {
        connection.deliver(.closed(code: 1013, reason: "server full"))
        return
      }
      self.connections[connection.id] = connection
      let (origin, room) = Self.split(connection.url)
      self.openedByOrigin[origin, default: 0] += 1
      self.roomOf[connection.id] = room
      connection.deliver(.opened)
    }
  }

  func close(_ connection: FakeConnection, code: UInt16 = 1000, reason: String = "") {
    queue.async {
      guard self.connections.removeValue(forKey: connection.id) != nil else { return }
      self.helloed.remove(connection.id)
      connection.deliver(.closed(code: code, reason: reason))
    }
  }

  /// Times a client stopped reading (`setReceiving(false)`), over every connection.
  let pauses = Locked(0)

  func receive(_ text: String, from connection: FakeConnection) {
    queue.async {
      guard let room = self.roomOf[connection.id] else { return }
      let peers = self.connections.values.filter { self.roomOf[$0.id] == room }
      switch self.mode {
      case .mirror:
        for peer in peers { peer.deliver(.text(text)) }
      case .rooms:
        self.handleRooms(text, from: connection, room: room, peers: peers)
      }
    }
  }

  private func handleRooms(_ text: String, from connection: FakeConnection, room: String, peers: [FakeConnection]) {
    guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any],
      let type = object["type"] as? String
    else {
      connection.deliver(.text(#"{"type":"error","code":"bad-json","message":"not JSON"}"#))
      return
    }
    switch type {
    case "hello":
      hellos[room, default: 0] += 1
      let members = peers.filter { helloed.contains($0.id) && $0.id != connection.id }
      helloed.insert(connection.id)
      switch roster {
      case .none: break
      case .peer:
        let frame = #"{"type":"peer","event":"join","session":"s\#(connection.id)","name":"n","color":"c"}"#
        for member in members { member.deliver(.text(frame)) }
      case .peers:
        joinedThisTick[room, default: []].append(#"{"session":"s\#(connection.id)","name":"n","color":"c"}"#)
      }
      let list =
        #"{"id":"L","title":"List","layout":"list","items":["#
        + items.map { #"{"id":"\#($0)","fields":{"title":"\#($0)"}}"# }.joined(separator: ",") + "]}"
      connection.deliver(
        .text(
          #"{"type":"welcome","session":"s\#(connection.id)","seq":\#(seqs[room, default: 0]),"board":{"lists":[\#(list)]},"peers":[]\#(roster == .peers ? ",\"peer_count\":\(members.count)" : "")}"#
        ))
    case "op":
      opsReceived += 1
      let id = object["id"] as? String ?? ""
      let op = object["op"] as? [String: Any] ?? [:]
      seqs[room, default: 0] += 1
      let seq = seqs[room]!
      var resolved = #"{"kind":"move","item":"\#(op["item"] as? String ?? "")","list":"L","index":0}"#
      if op["kind"] as? String == "insert" {
        items.append("n\(seq)")
        resolved = #"{"kind":"insert","item":"n\#(seq)","list":"L","index":0}"#
      }
      let frame = #"{"type":"applied","seq":\#(seq),"id":"\#(id)","by":"s\#(connection.id)","op":\#(resolved)}"#
      for peer in peers { peer.deliver(.text(frame)) }
    case "drag":
      let t = object["t"] as? String ?? ""
      let phase = object["phase"] as? String ?? ""
      latestDrag[room, default: [:]][connection.id] =
        #"{"session":"s\#(connection.id)","phase":"\#(phase)","item":"x","t":"\#(t)"}"#
    default:
      break
    }
  }

  private func tick() {
    for (room, joined) in joinedThisTick where !joined.isEmpty {
      let members = connections.values.filter { roomOf[$0.id] == room && helloed.contains($0.id) }
      let frame =
        #"{"type":"peers","joined":[\#(joined.joined(separator: ","))],"left":[],"count":\#(members.count)}"#
      for member in members { member.deliver(.text(frame)) }
    }
    joinedThisTick = [:]
    for (room, updates) in latestDrag where !updates.isEmpty {
      for peer in connections.values where roomOf[peer.id] == room {
        let others = updates.filter { $0.key != peer.id }.map(\.value)
        guard !others.isEmpty else { continue }
        peer.deliver(.text(#"{"type":"drags","updates":[\#(others.joined(separator: ","))]}"#))
      }
    }
    latestDrag = [:]
  }
}

final class FakeContext: LoadSocketContext, @unchecked Sendable {
  let server: FakeServer
  let queue = DispatchQueue(label: "fake-client")
  private let nextID = Locked(0)
  static let ids = Locked(0)

  init(server: FakeServer) { self.server = server }

  func connect(url: String, subprotocol: String?, onEvent: @escaping @Sendable (LoadSocketEvent) -> Void)
    -> any LoadSocket
  {
    let id = Self.ids.withLock {
      $0 += 1
      return $0
    }
    let connection = FakeConnection(id: id, url: url, context: self, onEvent: onEvent)
    server.open(connection)
    return connection
  }

  /// Client queue only: set by `shutdown`, after which no event is delivered (as a real context,
  /// whose service thread has ended).
  private(set) var isShutDown = false

  func post(_ work: @escaping @Sendable () -> Void) {
    queue.async { [self] in if !isShutDown { work() } }
  }

  func shutdown() { queue.sync { isShutDown = true } }
}

final class FakeConnection: LoadSocket, @unchecked Sendable {
  let id: Int
  let url: String
  let context: FakeContext
  let onEvent: @Sendable (LoadSocketEvent) -> Void

  init(id: Int, url: String, context: FakeContext, onEvent: @escaping @Sendable (LoadSocketEvent) -> Void) {
    self.id = id
    self.url = url
    self.context = context
    self.onEvent = onEvent
  }

  /// Client queue only: whether the client stopped reading, and the frames waiting meanwhile.
  private var paused = false
  private var held: [LoadSocketEvent] = []
  private var overflowed = false

  /// Delivers `event` on the client queue, or holds it while the client does not read (a close
  /// is never held: the socket going away is seen at once).
  func deliver(_ event: LoadSocketEvent) {
    context.queue.async {
      guard !self.context.isShutDown else { return }
      if case .closed = event {
        self.onEvent(event)
        return
      }
      guard self.paused else {
        self.onEvent(event)
        return
      }
      self.held.append(event)
      if let limit = self.context.server.maxHeldFrames, self.held.count > limit, !self.overflowed {
        self.overflowed = true
        self.held = []
        self.context.server.close(self, code: 1008, reason: "outgoing queue overflow: fake")
      }
    }
  }

  func send(_ text: String) { context.server.receive(text, from: self) }
  func close(code: UInt16, reason: String) { context.server.close(self) }

  func setReceiving(_ receiving: Bool) {
    context.queue.async {
      guard !self.context.isShutDown else { return }
      if !receiving {
        if !self.paused { self.context.server.pauses.withLock { $0 += 1 } }
        self.paused = true
        return
      }
      self.paused = false
      let waiting = self.held
      self.held = []
      for event in waiting { self.onEvent(event) }
    }
  }
}
