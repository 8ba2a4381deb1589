/// One op of a room's log: its room-wide sequence number and its opaque encoded bytes.
public struct StoredOp: Sendable, Equatable {
  /// The room-wide sequence number (gap-free and increasing, assigned by the room). At most `Int64.max`.
  public var seq: UInt64
  /// The op's encoded bytes; the store never looks inside.
  public var payload: [UInt8]

  /// Creates an op to store.
  public init(seq: UInt64, payload: [UInt8]) {
    self.seq = seq
    self.payload = payload
  }
}
