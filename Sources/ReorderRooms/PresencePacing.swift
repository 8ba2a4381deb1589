/// How often a room's drag presence goes out: at up to `maxHz` while the server has few
/// connections, slowing towards `minHz` as they grow, so that all rooms together send at most about
/// `framesPerSecond` `drags` frames.
///
/// A room flushes at most once per `interval(connections:)`; each flush sends each member at most
/// one frame, so a connection gets at most `1 / interval` frames per second and a busy room
/// batches every drag of an interval into one frame per connection. With `maxHz <= minHz` the rate
/// is fixed at `minHz`.
public struct PresencePacing: Sendable, Equatable {
  /// The rate under load (`--presence-hz`): the longest interval is `1 / minHz`.
  public var minHz: Double
  /// The rate of a light server (`--presence-max-hz`): the shortest interval is `1 / maxHz`.
  public var maxHz: Double
  /// The server-wide budget of `drags` frames per second (`--presence-budget`).
  public var framesPerSecond: Double

  /// A pacing; rates and budget are clamped to at least 1.
  public init(minHz: Double, maxHz: Double, framesPerSecond: Double) {
    self.minHz = max(1, minHz)
    self.maxHz = max(self.minHz, maxHz)
    self.framesPerSecond = max(1, framesPerSecond)
  }

  /// A fixed rate of `hz` flushes per second.
  public static func fixed(hz: Double) -> PresencePacing {
    PresencePacing(minHz: hz, maxHz: hz, framesPerSecond: .greatestFiniteMagnitude)
  }

  /// The shortest time in seconds between two flushes of one room, with `connections` open on
  /// the server: `connections / framesPerSecond`, within `[1 / maxHz, 1 / minHz]`.
  public func interval(connections: Int) -> Double {
    let byBudget = Double(max(1, connections)) / framesPerSecond
    return min(1 / minHz, max(1 / maxHz, byBudget))
  }
}
