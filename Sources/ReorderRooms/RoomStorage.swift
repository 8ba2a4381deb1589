/// One op of a room's log: its seq and the stored payload (see `OpRecord`).
public struct LogEntry: Sendable, Equatable {
  /// Per-room, gap-free, starting at 1.
  public var seq: UInt64
  /// The encoded `OpRecord`.
  public var payload: [UInt8]

  /// A log entry.
  public init(seq: UInt64, payload: [UInt8]) {
    self.seq = seq
    self.payload = payload
  }
}

/// What the rooms read from storage, synchronously, when a room is loaded or a client catches up.
/// Writes go out as `RoomAction.persist` / `.snapshot` so the driver can group-commit them.
public protocol RoomStorage: AnyObject, Sendable {
  /// The latest snapshot of `room`: the seq it includes and the board bytes.
  func loadSnapshot(room: String) throws -> (seq: UInt64, bytes: [UInt8])?
  /// Up to `limit` log entries of `room` with seq > `seq`, in order.
  func entries(room: String, after seq: UInt64, limit: Int) throws -> [LogEntry]
  /// Names of every room with stored state.
  func roomNames() throws -> [String]
}

/// A `RoomStorage` in memory, for tests and for drivers that apply the persist actions to it.
public final class InMemoryRoomStorage: RoomStorage, @unchecked Sendable {
  private var snapshots: [String: (seq: UInt64, bytes: [UInt8])] = [:]
  private var logs: [String: [LogEntry]] = [:]

  /// An empty storage.
  public init() {}

  /// Appends entries (as a persist action would).
  public func append(room: String, entries: [LogEntry]) {
    logs[room, default: []].append(contentsOf: entries)
  }

  /// Saves a snapshot (as a snapshot action would).
  public func saveSnapshot(room: String, seq: UInt64, bytes: [UInt8]) {
    snapshots[room] = (seq, bytes)
  }

  public func loadSnapshot(room: String) throws -> (seq: UInt64, bytes: [UInt8])? { snapshots[room] }

  public func entries(room: String, after seq: UInt64, limit: Int) throws -> [LogEntry] {
    Array((logs[room] ?? []).lazy.filter { $0.seq > seq }.prefix(limit))
  }

  public func roomNames() throws -> [String] { Array(Set(logs.keys).union(snapshots.keys)).sorted() }
}
