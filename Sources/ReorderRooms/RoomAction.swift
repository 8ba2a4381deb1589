import ReorderBasics

/// A connection as the rooms see it: the transport's connection id, without the transport.
public struct ConnectionHandle: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The transport's `ConnectionID.rawValue`.
  public var rawValue: UInt64
  /// A handle for a transport connection id.
  public init(_ rawValue: UInt64) { self.rawValue = rawValue }
  public var description: String { "c\(rawValue)" }
  public static func < (a: ConnectionHandle, b: ConnectionHandle) -> Bool { a.rawValue < b.rawValue }
}

/// How urgently a frame must reach the client.
public enum FramePriority: Sendable, Equatable {
  /// Ops, acks, errors: never dropped (the connection is closed instead when its queue overflows).
  case data
  /// Drags: may be dropped while the connection is busy (the transport decides).
  case presence
}

/// Something the driver of the rooms must do; the rooms themselves do no I/O.
public enum RoomAction: Sendable {
  /// Send one text frame to one connection.
  case send(ConnectionHandle, [UInt8], FramePriority)
  /// Send the same text frame to several connections.
  case broadcast([ConnectionHandle], [UInt8], FramePriority)
  /// Keep these records of `room`: ops its log answered `.ordered`, resolved (`LogPort.record`);
  /// when durable, call `RoomRegistry.durable(room:upTo:)`, when the write failed,
  /// `RoomRegistry.writeFailed(room:error:)`.
  case persist(room: String, ops: [LogEntry])
  /// Save a snapshot of `room` (asynchronously, after the ops before it): `LogPort.snapshot`; when
  /// the failure stops the room's later writes, `RoomRegistry.writeFailed(room:error:)`.
  case snapshot(room: String, snapshot: RoomSnapshot)
  /// Load a room off the rooms' thread (`RoomLoad.run(on:completion:)`), then hand the result to
  /// `RoomRegistry.loaded(room:result:now:)`. The room's connections wait for it.
  case load(RoomLoad)
  /// Read ops older than the room keeps in memory (`RoomStore.entries`), then hand them to
  /// `RoomRegistry.read(_:result:)`.
  case read(RoomRead)
  /// Read a page of a room's history and the board before it, and send it to the connection as a
  /// `history` frame (`HistoryRead.frame`).
  case history(HistoryRead)
  /// Close a connection (after its queued frames) with a websocket close code and reason.
  case close(ConnectionHandle, code: UInt16, reason: String)
  /// Write one log line: an event name and its fields.
  case logLine(Log.Level, String, [(String, String)])
  /// Work for the room's log (`LogAction`).
  case log(LogAction)
  /// Work for the room's presence channel (`PresenceAction`).
  case presence(PresenceAction)
  /// Every op of the HTTP API's request `request` (`RoomRegistry.applyAPIOps`) is answered: answer
  /// the request with these results, in the order of its ops.
  case apiDone(request: UInt64, results: [APIOpResult])
  /// The API's request `request` will get no results (the board was replaced or deleted, or the
  /// room dropped): answer it 503 with `reason`.
  case apiFailed(request: UInt64, reason: String)
}

extension RoomAction {
  /// Follow `room` from the entry after `after`: its log and its presence.
  static func follow(room: String, after: UInt64) -> [RoomAction] {
    [.log(.follow(room: room, after: after)), .presence(.follow(room: room))]
  }

  /// Stop following `room`: its log and its presence.
  static func unfollow(room: String) -> [RoomAction] {
    [.log(.unfollow(room: room)), .presence(.unfollow(room: room))]
  }
}

/// A read of stored ops for one connection: the `applied` frames of a re-sent op id older than
/// the room's catch-up window.
public struct RoomRead: Sendable, Equatable {
  /// The room whose log to read.
  public var room: String
  /// Who the frames are for.
  public var connection: ConnectionHandle
  /// Ops with seq > `after` …
  public var after: UInt64
  /// … at most this many.
  public var limit: Int

  /// A read.
  public init(room: String, connection: ConnectionHandle, after: UInt64, limit: Int) {
    self.room = room
    self.connection = connection
    self.after = after
    self.limit = limit
  }
}
