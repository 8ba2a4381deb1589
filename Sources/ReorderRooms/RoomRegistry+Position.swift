extension RoomRegistry {
  /// The loaded room's epoch and last seq, or nil when it is not loaded: what cluster mode
  /// compares around applying the log to learn what changed, without counting the board's lists
  /// and items each time (`summary(room:)` does).
  /// - Complexity: O(1).
  public func position(room name: String) -> (epoch: String, seq: UInt64)? {
    inPlace(name) { ($0.epoch, $0.seq) }
  }
}
